import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

/// A journal store opened with extreme shard counts and checkpoint settings, and driven with
/// extreme instants, dates and ids: each is refused or done, never a crash, and it reopens.
@Suite struct ExtremeStoreTests {
    static let settings: [(shards: Int, checkpoints: Checkpoints)] = [
        (.min, Checkpoints(afterRecords: .min, afterBytes: .min, retainDays: .min)),
        (.max, Checkpoints(afterRecords: 1, afterBytes: .max, retainDays: .max)),
        (0, Checkpoints(afterRecords: 0, afterBytes: 0, retainDays: 0)),
        (-1, Checkpoints(afterRecords: -1, afterBytes: -1, retainDays: -1)),
    ]

    @Test(arguments: 0..<4)
    func extremeSettingsAndInputs(setting: Int) async throws {
        let (shards, checkpoints) = Self.settings[setting]
        let disk = SimulatedDisk()
        let store = try JournalStore(
            files: disk, rules: JournalFixture.rules, shards: shards, checkpoints: checkpoints)
        let instants: [Int64] = [.min, -1, 0, JournalFixture.now.secondsSinceEpoch, .max]
        let days: [Int32] = [.min, 0, JournalFixture.firstDay.dayNumber, .max]
        var accepted = 0
        for seconds in instants {
            let now = Instant(secondsSinceEpoch: seconds)
            for day in days {
                let date = LocalDate(dayNumber: day)
                for (n, id) in [UInt64(0), 1, .max].enumerated() {
                    let request = ReservationRequest(
                        slot: Slot(station: "S0", socket: "1", date: date, hour: 9 + n), user: UserID(id),
                        requestID: RequestID("r\(seconds)-\(day)-\(id)"), reminder: .seconds(Int64.min))
                    _ = try? await store.reserve(request, at: now)
                    let plain = try? await store.reserve(
                        ReservationRequest(
                            slot: Slot(station: "S1", socket: "1", date: date, hour: 9 + n), user: UserID(id)),
                        at: now)
                    if plain != nil { accepted += 1 }
                    _ = try? await store.cancel(BookingID(id), by: UserID(id), at: now)
                    _ = try? await store.checkIn(BookingID(id), by: UserID(id), at: now)
                    _ = try? await store.lookup(BookingID(id))
                    _ = try? await store.bookings(of: UserID(id), at: now)
                }
                _ = try? await store.dayView(of: "S0", on: date, at: now)
                _ = try? await store.checkpoint(releasingDaysBefore: date, at: now)
            }
            _ = try? await store.checkpoint()
        }
        let before = try await store.allBookingsByID()
        await store.close()
        #expect(accepted > 0)
        let reopened = try JournalStore(files: disk, rules: JournalFixture.rules, shards: shards)
        #expect(try await reopened.allBookingsByID() == before)
        await reopened.close()
    }

    /// A directory whose snapshot has the last generation is refused on opening: the first
    /// checkpoint after it would need the next one (it opened, and that checkpoint trapped).
    @Test func theLastGenerationIsRefused() async throws {
        let disk = SimulatedDisk()
        let store = try JournalStore(files: disk, rules: JournalFixture.rules, shards: 1)
        try store.writeSnapshot(Ledger(rules: JournalFixture.rules).snapshot(), generation: .max, shards: 1)
        await store.close()
        let error = try #require(throws: JournalError.self) {
            try JournalStore(files: disk, rules: JournalFixture.rules, shards: 1)
        }
        #expect(error.kind == .corrupt && error.message.contains("\(UInt64.max)"), "\(error)")
    }
}
