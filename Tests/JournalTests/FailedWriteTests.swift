import Foundation
import SlotScheduler
import Synchronization
import Testing

@testable import SlotSchedulerJournal

/// A write or sync that fails while the disk stays on (no space, a write-back error): the
/// callers it covered are refused, and nothing written or acknowledged afterwards may contradict
/// that.
@Suite("Failed writes")
struct FailedWriteTests {
    static let now = JournalFixture.now

    /// Waits until `condition` holds, polling at most ``SimulatedDisk/patience`` times, without
    /// holding a thread of the pool the store's callers run on.
    static func waitUntil(_ condition: () -> Bool) async {
        var polls = 0
        while !condition(), polls < SimulatedDisk.patience {
            polls += 1
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Booking X is kept; its cancel fails to write while user 2 books X's slot (free in memory).
    /// Closing (or a checkpoint) used to write user 2's booking after the gap: the journal then
    /// booked X's slot twice and refused to open, and the checkpoint returned success with both
    /// refused commands in its snapshot.
    @Test(arguments: [false, true])
    func nothingIsWrittenAfterAFailedWrite(checkpointFirst: Bool) async throws {
        let disk = SimulatedDisk()
        let store = try JournalStore(files: disk, rules: JournalFixture.rules)
        let x = try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 1), at: Self.now)
        let appended = { store.state.withLock { $0.appended } }
        let before = appended()
        disk.holdWrites(failingTheFirst: true)
        defer { disk.releaseWrites() }
        let cancel = Task { try await store.cancel(x.id, by: 1, at: Self.now) }
        await Self.waitUntil { appended() > before }
        let cancelled = appended()
        let rebook = Task { try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 2), at: Self.now) }
        await Self.waitUntil { appended() > cancelled }
        #expect(appended() > cancelled, "user 2's booking was buffered")
        disk.releaseWrites()
        await #expect(throws: JournalError.self) { try await cancel.value }
        await #expect(throws: JournalError.self) { try await rebook.value }
        if checkpointFirst {
            await #expect(throws: JournalError.self) { try await store.checkpoint() }
        }
        await store.close()
        let reopened = try JournalStore(files: disk, rules: JournalFixture.rules)
        let kept = try await reopened.allBookingsByID().map { "\($0.id) user \($0.user) \($0.status)" }
        #expect(kept == ["\(x.id) user 1 active"])
        await reopened.close()
    }

    /// Two syncs in flight: the first one's fails after the second one's succeeded. The second
    /// used to mark everything up to its end durable, acknowledging the first caller over a sync
    /// that failed; now a sync counts only once every earlier one has succeeded.
    @Test func aLaterSyncDoesNotAcknowledgeOverAFailedEarlierOne() async throws {
        let disk = SimulatedDisk()
        let store = try JournalStore(files: disk, rules: JournalFixture.rules)
        let syncs = { store.state.withLock { $0.syncs } }
        let before = syncs()
        disk.holdNextSync(failing: true)
        defer { disk.releaseSync() }
        let first = Task { try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 1), at: Self.now) }
        await Self.waitUntil { disk.syncIsHeld }
        #expect(disk.syncIsHeld)
        let second = Task { try await store.reserve(ReservationRequest(slot: slot(1, 9), user: 2), at: Self.now) }
        await Self.waitUntil { syncs() > before }
        #expect(syncs() > before, "the second sync ended first")
        disk.releaseSync()
        await #expect(throws: JournalError.self) { try await first.value }
        await #expect(throws: JournalError.self) { try await second.value }
        await store.close()
    }
}
