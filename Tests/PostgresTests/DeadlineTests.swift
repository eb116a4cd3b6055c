#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import Synchronization
import Testing

@testable import SlotSchedulerPostgres

/// Every store call's per-attempt deadline (`PostgresConfiguration.attemptTimeout`): one watcher
/// for the process (`DeadlineWatch`) instead of a timer task per call. A call that never answers
/// is abandoned; one that answers leaves nothing armed behind it. No database needed.
@Suite struct DeadlineTests {
    /// A call that would answer only after 30 s is abandoned after its 50 ms (one tick late at
    /// most; the bound here is loose for a loaded machine), and its task is cancelled.
    @Test func aCallWithoutAnAnswerIsAbandoned() async throws {
        let cancelled = Atomic<Bool>(false)
        let began = ContinuousClock.now
        await #expect {
            _ = try await PostgresBookingService.withDeadline(.milliseconds(50)) { () async throws -> Int in
                do { try await Task.sleep(for: .seconds(30)) } catch {
                    cancelled.store(true, ordering: .relaxed)
                    throw error
                }
                return 1
            }
        } throws: { error in
            guard case AbandonedCall.deadline(let limit) = error else { return false }
            return limit == .milliseconds(50)
        }
        #expect(ContinuousClock.now - began < .seconds(10))
        for _ in 0..<200 where !cancelled.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(10)) }
        let wasCancelled = cancelled.load(ordering: .relaxed)
        #expect(wasCancelled)
    }

    /// Calls that answer in time return their answers (or their errors) and disarm their
    /// deadlines: nothing stays armed, however many ran at once.
    @Test func answeredCallsLeaveNothingArmed() async throws {
        // A watch of its own: other suites' store calls arm the shared one meanwhile.
        let watch = DeadlineWatch()
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<500 {
                group.addTask {
                    try await PostgresBookingService.withDeadline(.seconds(30), watch: watch) {
                        () async throws -> Int in
                        await Task.yield()
                        return i
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answers == (0..<500).reduce(0, +))
        await #expect(throws: Rejection.self) {
            try await PostgresBookingService.withDeadline(.seconds(30), watch: watch) { () async throws -> Int in
                throw Rejection(.slotTaken)
            }
        }
        #expect(watch.armed == 0)
    }
}
#endif
