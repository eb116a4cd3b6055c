#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// Every store call's per-attempt deadline (`PostgresConfiguration.attemptTimeout`,
/// `withDeadline`): a call that never answers is abandoned and its task cancelled; one that
/// answers in time gives its answer or its error. No database needed.
@Suite struct DeadlineTests {
    /// A call that would answer only after 30 s is abandoned after its 50 ms, and its task is
    /// cancelled. No bound on the time: in a full parallel run other suites can keep the
    /// cooperative threads busy for minutes (CI saw 137 s), which delays the deadline's timer
    /// and the call's sleep alike; the order of the two is what is checked.
    @Test func aCallWithoutAnAnswerIsAbandoned() async throws {
        // The call says how it ended: cancelled (true) or by answering after its 30 s (false).
        let (ended, tell) = AsyncStream.makeStream(of: Bool.self)
        await #expect {
            _ = try await PostgresBookingService.withDeadline(.milliseconds(50)) { () async throws -> Int in
                do { try await Task.sleep(for: .seconds(30)) } catch {
                    tell.yield(true)
                    throw error
                }
                tell.yield(false)
                return 1
            }
        } throws: { error in
            guard case AbandonedCall.deadline(let limit) = error else { return false }
            return limit == .milliseconds(50)
        }
        var endings = ended.makeAsyncIterator()
        let cancelled = await endings.next()
        #expect(cancelled == true)
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
