import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

/// `PosixDirectory` extends journals with zeros ahead of their appends; recovery reads the zeros
/// after the last record as unused space, and keeps telling torn tails from corruption before them.
@Suite("Journal preallocation: a tail of zeros")
struct PreallocationTests {
    static let zeros = [UInt8](repeating: 0, count: 4096)

    @Test("whole records then zeros open with nothing torn; a torn record before the zeros is cut")
    func zerosAfterRecords() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: nil)
        let bytes = w.files[w.journal] ?? []
        let n = w.boundaries.count - 1
        var files = w.files
        files[w.journal] = bytes + Self.zeros
        guard case .success(let (all, torn)) = CorruptionTests.open(files) else {
            Issue.record("records then zeros refused")
            return
        }
        #expect(all == w.states[n] && torn == 0)
        var tornCuts = 0
        for cut in w.boundaries[n - 1] + 1..<bytes.count {
            files[w.journal] = Array(bytes.prefix(cut)) + Self.zeros
            // A cut that lost only zeros leaves the record whole (its checksum says so).
            let whole = bytes[cut...].allSatisfy { $0 == 0 }
            switch CorruptionTests.open(files) {
            case .success(let (bookings, cutBytes)):
                #expect(bookings == w.states[whole ? n : n - 1], "cut at \(cut)")
                #expect(cutBytes == (whole ? 0 : cut - w.boundaries[n - 1] + Self.zeros.count), "cut at \(cut)")
                if !whole { tornCuts += 1 }
            case .failure(let error):
                Issue.record("cut at \(cut), then zeros, refused: \(error)")
            }
        }
        #expect(tornCuts > 10)
    }

    /// A record of zeros before a valid one in the newest journal is a write a power cut lost
    /// while a later one reached the disk: the journal ends there (nothing after it was
    /// acknowledged), where opening used to be refused until an operator cut the file.
    @Test("zeros where a record was, before a valid one, end the newest journal there")
    func zerosBeforeARecord() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: nil)
        let n = w.boundaries.count - 1
        var bytes = w.files[w.journal] ?? []
        for i in w.boundaries[n - 2]..<w.boundaries[n - 1] { bytes[i] = 0 }
        var files = w.files
        files[w.journal] = bytes + Self.zeros
        switch CorruptionTests.open(files) {
        case .success(let (bookings, cutBytes)):
            #expect(bookings == w.states[n - 2])
            #expect(cutBytes == bytes.count + Self.zeros.count - w.boundaries[n - 2])
        case .failure(let error):
            Issue.record("a lost write before a valid record refused: \(error)")
        }
        // The same bytes with one not zero where the lost record began: corruption, refused.
        files[w.journal]?[w.boundaries[n - 2]] = 1
        guard case .failure(let error) = CorruptionTests.open(files) else {
            Issue.record("a damaged record before a valid one opened")
            return
        }
        #expect(error.kind == .corrupt && error.offset == w.boundaries[n - 2], "\(error)")
    }

    @Test("an older journal ending in zeros, and a newest one of zeros only (never synced), open")
    func zeroJournals() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: 14)
        guard let generation = FileNames.generation(of: w.journal, prefix: "journal-", suffix: ".log") else {
            Issue.record("journal name \(w.journal)")
            return
        }
        var files = w.files
        files[w.journal] = (files[w.journal] ?? []) + Self.zeros
        files[FileNames.journal(generation + 1)] = Self.zeros
        guard case .success(let (bookings, torn)) = CorruptionTests.open(files) else {
            Issue.record("zero tails refused")
            return
        }
        #expect(bookings == w.states.last && torn == 0)
    }

    @Test("a journal on disk is preallocated with zeros and reopens with nothing torn")
    func onDisk() async throws {
        let dir = JournalFixture.temporaryDirectory("prealloc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 2)
        var rng = SplitMix64(seed: 5)
        for i in 0..<20 {
            _ = try? await store.reserve(
                ReservationRequest(slot: JournalFixture.slot(&rng), user: UserID(UInt64(i % 7))), at: JournalFixture.now
            )
        }
        let before = try await store.allBookingsByID()
        await store.close()
        let journal = dir + "/" + FileNames.journal(0)
        let size = (try FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0
        #expect(size >= 4 << 20)
        let reopened = try JournalStore(directory: dir, rules: JournalFixture.rules)
        #expect(reopened.statistics.tornBytes == 0)
        #expect(try await reopened.allBookingsByID() == before && before.count > 5)
        await reopened.close()
    }
}

/// A preallocation of `Int.max` bytes trapped on the first append to a journal (`position +
/// count + preallocation` overflowed); it is capped at ``PosixDirectory.maximumPreallocation``.
@Suite struct ExtremePreallocationTests {
    @Test(arguments: [Int.max, Int.max - 1, Int.min, -1])
    func extremePreallocationIsCapped(bytes: Int) throws {
        let path = JournalFixture.temporaryDirectory("prealloc")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = try PosixDirectory(path: path, preallocation: bytes)
        #expect(directory.preallocation == (bytes < 0 ? 0 : PosixDirectory.maximumPreallocation))
        let file = try directory.create("journal-0000000000000001.log")
        try file.write([1, 2, 3])
        try file.write([4])
        file.close()
        let written = try directory.read("journal-0000000000000001.log")
        #expect(written.prefix(4) == [1, 2, 3, 4])
        #expect(written.count == (bytes < 0 ? 4 : 3 + PosixDirectory.maximumPreallocation))
    }
}
