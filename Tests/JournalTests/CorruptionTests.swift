import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

@Suite("Journal corruption: torn tails and bit flips")
struct CorruptionTests {
    /// A closed store's files, with the current journal's record boundaries and the state after
    /// each prefix of its records.
    struct Written {
        var files: [String: [UInt8]]
        var journal: String
        /// Start offsets of the journal's records, then its end.
        var boundaries: [Int]
        /// `states[k]`: all bookings after the journal's first k records.
        var states: [[Booking]]
    }

    static func write(checkpointAfter: Int?) async throws -> Written {
        let disk = SimulatedDisk()
        let store = try JournalStore(files: disk, rules: JournalFixture.rules, shards: 2)
        var rng = SplitMix64(seed: 77)
        var states = [try await store.allBookingsByID()]
        var made: [Booking] = []
        for i in 0..<30 {
            let records = store.statistics.records
            if i % 5 == 4, let b = made.last {
                _ = try? await store.cancel(b.id, by: b.user, at: JournalFixture.now)
            } else if let b = try? await store.reserve(
                ReservationRequest(
                    slot: JournalFixture.slot(&rng), user: UserID(UInt64(i % 7)), requestID: RequestID("q\(i)")),
                at: JournalFixture.now)
            {
                made.append(b)
            }
            if store.statistics.records > records { states.append(try await store.allBookingsByID()) }
            if i == checkpointAfter {
                try await store.checkpoint()
                states = [try await store.allBookingsByID()]
            }
        }
        await store.close()
        let files = disk.survivors
        let journal = FileNames.journal(store.statistics.generation)
        let bytes = files[journal] ?? []
        var boundaries = [RecordFormat.headerSize]
        var end = RecordFormat.headerSize
        while case .record(let r) = RecordFormat.read(bytes, at: end) {
            end += r.size
            boundaries.append(end)
        }
        #expect(boundaries.last == bytes.count)
        #expect(boundaries.count == states.count)
        return Written(files: files, journal: journal, boundaries: boundaries, states: states)
    }

    static func open(_ files: [String: [UInt8]]) -> Result<([Booking], Int), JournalError> {
        do throws(JournalError) {
            let store = try JournalStore(files: SimulatedDisk(files), rules: JournalFixture.rules)
            let bookings = store.scheduler.allBookings
            return .success((bookings, store.statistics.tornBytes))
        } catch { return .failure(error) }
    }

    @Test("every byte offset of the last three records cut: recovery opens at the last whole record")
    func truncatedTail() async throws {
        let w = try await Self.write(checkpointAfter: nil)
        let bytes = w.files[w.journal] ?? []
        let n = w.boundaries.count - 1
        for cut in w.boundaries[n - 3]..<bytes.count {
            var files = w.files
            files[w.journal] = Array(bytes.prefix(cut))
            let whole = w.boundaries.lastIndex { $0 <= cut } ?? 0
            switch Self.open(files) {
            case .success(let (bookings, torn)):
                #expect(bookings == w.states[whole], "cut at \(cut)")
                #expect(torn == cut - w.boundaries[whole], "cut at \(cut)")
            case .failure(let error):
                Issue.record("cut at \(cut) refused: \(error)")
            }
        }
    }

    @Test("one bit flipped at each byte of journal and snapshot: torn tail cut, or refused at the record's offset")
    func bitFlips() async throws {
        let w = try await Self.write(checkpointAfter: 14)
        let n = w.boundaries.count - 1
        var outcomes: [String: Int] = [:]
        for (name, bytes) in w.files.sorted(by: { $0.key < $1.key }) {
            for offset in bytes.indices {
                var files = w.files
                files[name]?[offset] ^= UInt8(1 << ((offset &* 7 &+ 3) % 8))
                let result = Self.open(files)
                let path = "/simulated/" + name
                if name == w.journal {
                    let record = w.boundaries.lastIndex { $0 <= offset } ?? 0
                    if offset < RecordFormat.headerSize {
                        guard case .failure(let e) = result else {
                            Issue.record("flip in the header at \(offset) opened")
                            continue
                        }
                        #expect(e.kind == .corrupt && e.file == path)
                        outcomes["refused", default: 0] += 1
                    } else if record == n - 1 {
                        guard case .success(let (bookings, _)) = result else {
                            Issue.record("flip in the last record at \(offset) refused: \(result)")
                            continue
                        }
                        #expect(bookings == w.states[n - 1], "flip at \(offset)")
                        outcomes["torn tail cut", default: 0] += 1
                    } else {
                        guard case .failure(let e) = result else {
                            Issue.record("flip in record \(record) at \(offset) opened")
                            continue
                        }
                        #expect(e.kind == .corrupt && e.file == path && e.offset == w.boundaries[record], "\(e)")
                        outcomes["refused", default: 0] += 1
                    }
                } else {
                    guard case .failure(let e) = result else {
                        Issue.record("flip in \(name) at \(offset) opened")
                        continue
                    }
                    #expect(e.kind == .corrupt && e.file == path, "\(e)")
                    outcomes["refused", default: 0] += 1
                }
            }
        }
        #expect((outcomes["torn tail cut"] ?? 0) > 0 && (outcomes["refused"] ?? 0) > 0)
    }
}
