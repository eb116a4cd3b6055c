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

    /// A lost write leaves its sectors' synced zeros: zeros from where the record began to the
    /// end of its sector (or the next record). A record whose frame alone reads zero, its payload
    /// still there, is damage: it was cut, with every acknowledged record after it, until this
    /// was refused.
    @Test("a record whose frame alone is zero, before valid ones, is refused: a lost write zeros its sector")
    func aZeroFrameBeforeValidRecordsIsRefused() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: nil)
        var refused = 0
        for n in 1..<(w.boundaries.count - 2) {
            let start = w.boundaries[n]
            // Positions whose sector would end within the frame: a lost write cannot be told there.
            guard start % Recovery.sectorSize < Recovery.sectorSize - 16 else { continue }
            var files = w.files
            for i in start..<(start + RecordFormat.frameSize) { files[w.journal]?[i] = 0 }
            guard case .failure(let error) = CorruptionTests.open(files) else {
                Issue.record("record \(n)'s frame zeroed, the records after it cut")
                continue
            }
            #expect(error.kind == .corrupt && error.offset == start, "\(error)")
            refused += 1
        }
        #expect(refused > 10)
    }

    /// A tail crafted to claim a long record at every byte would cost the square of its length
    /// to search for the next valid record (256 KiB took 4.5 minutes): past its budget the
    /// search stops, and opening is refused.
    @Test("a tail too costly to tell from a torn one is refused")
    func aCostlyTailIsRefused() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: nil)
        let count = 1 << 16
        var tail: [UInt8] = []
        tail.reserveCapacity(4 * count)
        // Each position reads as a 64 KiB command record of the current version.
        for _ in 0..<count { tail += [0x01, 0x00, 0x01, 0x01] }
        #expect(
            Recovery.firstValidRecord([0] + tail, after: 0, before: tail.count + 1) == .undecided)
        var files = w.files
        files[w.journal] = (files[w.journal] ?? []) + [0xFF] + tail
        guard case .failure(let error) = CorruptionTests.open(files) else {
            Issue.record("a crafted tail opened")
            return
        }
        #expect(error.kind == .corrupt && error.message.contains("too costly"), "\(error)")
    }

    /// The newest journal holding less than a header is one created but not yet synced only if
    /// what it holds begins the header this store writes; anything else is refused, not
    /// replaced by a new journal.
    @Test("a short newest journal that is not a torn header is refused, not replaced")
    func aShortJournalThatIsNoTornHeaderIsRefused() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: 14)
        let generation = try #require(FileNames.generation(of: w.journal, prefix: "journal-", suffix: ".log"))
        let next = FileNames.journal(generation + 1)
        let header = RecordFormat.header(.init(kind: .journal, shards: 2, generation: generation + 1))
        for torn in [8, 13, 20, 27] {
            var files = w.files
            files[next] = Array(header.prefix(torn)) + Self.zeros
            guard case .success(let (bookings, _)) = CorruptionTests.open(files) else {
                Issue.record("a header torn at \(torn) refused")
                continue
            }
            #expect(bookings == w.states.last)
        }
        var version2 = header
        version2[8] = 2
        for (what, bytes) in [("someone's file", Array("USERDATA".utf8)), ("another version", version2)] {
            var files = w.files
            files[next] = bytes
            guard case .failure(let error) = CorruptionTests.open(files) else {
                Issue.record("\(what) replaced by a new journal")
                continue
            }
            #expect(error.kind == .corrupt && error.file.hasSuffix(next), "\(what): \(error)")
        }
    }

    @Test("an older journal ending in zeros, and a newest one of zeros only (never synced), open")
    func zeroJournals() async throws {
        let w = try await CorruptionTests.write(checkpointAfter: 14)
        let generation = try #require(FileNames.generation(of: w.journal, prefix: "journal-", suffix: ".log"))
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

/// A journal's files are read only when they are regular files: a fifo in a journal's place
/// blocked the store's opening forever, and a link to `/dev/zero` was read until memory ran out.
@Suite struct JournalFileKindTests {
    @Test func aFifoOrALinkInAJournalsPlaceIsRefused() async throws {
        let dir = JournalFixture.temporaryDirectory("kinds")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 2)
        await store.close()
        let journal = dir + "/" + FileNames.journal(0)
        try FileManager.default.moveItem(atPath: journal, toPath: dir + "/kept")
        #expect(mkfifo(journal, 0o644) == 0)
        #expect(throws: JournalError.self) { try JournalStore(directory: dir, rules: JournalFixture.rules) }
        for target in ["/dev/zero", dir + "/kept"] {
            try FileManager.default.removeItem(atPath: journal)
            try FileManager.default.createSymbolicLink(atPath: journal, withDestinationPath: target)
            #expect {
                try JournalStore(directory: dir, rules: JournalFixture.rules)
            } throws: { error in
                (error as? JournalError).map { $0.kind == .corrupt && $0.message.contains("symbolic link") } == true
            }
        }
        try FileManager.default.removeItem(atPath: journal)
        try FileManager.default.moveItem(atPath: dir + "/kept", toPath: journal)
        let reopened = try JournalStore(directory: dir, rules: JournalFixture.rules)
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
