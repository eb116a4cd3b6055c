#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// Every store call's per-attempt deadline (`PostgresConfiguration.attemptTimeout`,
/// `withDeadline`): a call that never answers is abandoned and its task cancelled; one that
/// answers in time gives its answer or its error. No database needed.
@Suite struct DeadlineTests {
    /// A call that never answers (it waits on a stream nobody feeds, which only its task's
    /// cancellation ends) is abandoned after its 50 ms, and its task is cancelled. No bound on
    /// the time but the suite's limit: in a full parallel run other suites can keep the
    /// cooperative threads busy for minutes (CI saw 150 s). A deadline that never fires leaves
    /// the call waiting until that limit, and the test fails.
    @Test(.timeLimit(.minutes(10))) func aCallWithoutAnAnswerIsAbandoned() async throws {
        let (never, keep) = AsyncStream.makeStream(of: Void.self)
        let (ended, tell) = AsyncStream.makeStream(of: Bool.self)
        await #expect {
            _ = try await PostgresBookingService.withDeadline(.milliseconds(50)) { () async throws -> Int in
                var waiting = never.makeAsyncIterator()
                _ = await waiting.next()
                tell.yield(Task.isCancelled)
                try Task.checkCancellation()
                return 1
            }
        } throws: { error in
            guard case AbandonedCall.deadline(let limit) = error else { return false }
            return limit == .milliseconds(50)
        }
        var endings = ended.makeAsyncIterator()
        let cancelled = await endings.next()
        #expect(cancelled == true)
        keep.finish()
    }

    /// Calls that answer in time, many at once, return their own answers; an error passes
    /// through as it was thrown. (Deadlines of an hour: a loaded run must not abandon them.)
    @Test func answeredCallsGiveTheirAnswers() async throws {
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<500 {
                group.addTask {
                    try await PostgresBookingService.withDeadline(.seconds(3600)) { () async throws -> Int in
                        await Task.yield()
                        return i
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }.sorted()
        }
        #expect(answers == Array(0..<500))
        await #expect(throws: Rejection(.slotTaken)) {
            try await PostgresBookingService.withDeadline(.seconds(3600)) { () async throws -> Int in
                throw Rejection(.slotTaken)
            }
        }
    }
}
#endif
