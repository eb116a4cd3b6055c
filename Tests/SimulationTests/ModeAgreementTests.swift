import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// The deterministic and the threads mode make the same commands and count them the same way.
@Suite struct ModeAgreement {
    static let day = Fixtures.date("2018-06-07")

    func closing(at operation: Int) -> TimedChange {
        TimedChange(atOperation: operation, station: "s1", socket: "1", date: Self.day, hours: .closed, onBookings: nil)
    }

    func both(_ s: Scenario) async throws -> (deterministic: Report, threads: Report) {
        let p = try Fixtures.prepared(s)
        let deterministic = try Simulator.runDeterministic(p)
        let threads = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 2)
        return (deterministic, threads)
    }

    /// A timeline change at `atOperation == workload.operations` is made after the workload.
    @Test func timelineChangeAtTheEndIsMadeInBothModes() async throws {
        var s = Fixtures.small(operations: 200)
        s.workload?.mix = .init(reserve: 80, cancel: 10, query: 10)
        s.timeline = [closing(at: 200)]
        let (deterministic, threads) = try await both(s)
        #expect(deterministic.availabilityChanges == 1)
        #expect(threads.availabilityChanges == 1)
        #expect(deterministic.passed && threads.passed)
    }

    /// A timeline without a workload is made too, at the workload's start.
    @Test func timelineWithoutWorkloadIsMadeInBothModes() async throws {
        var s = Fixtures.small()
        s.workload = nil
        s.steps = [
            Step(op: .reserve, user: 1, station: "s1", socket: "1", date: Self.day, hour: 9, expect: "accepted")
        ]
        s.timeline = [closing(at: 0)]
        let (deterministic, threads) = try await both(s)
        #expect(deterministic.availabilityChanges == 1)
        #expect(threads.availabilityChanges == 1)
        #expect(deterministic.displaced == 1)
    }

    /// A cancel step whose label names a refused reservation is refused (unknownBooking) and
    /// counted as refused in both modes: accepted + refused + cancelled covers every step.
    @Test func cancelOfARefusedReservationIsCounted() async throws {
        var s = Fixtures.small()
        s.workload = nil
        s.steps = [
            Step(op: .reserve, user: 1, station: "s1", socket: "1", date: Self.day, hour: 9, label: "a"),
            Step(op: .reserve, user: 2, station: "s1", socket: "1", date: Self.day, hour: 9, label: "b"),
            Step(op: .cancel, user: 2, booking: "b", expect: "unknownBooking"),
        ]
        let (deterministic, threads) = try await both(s)
        for report in [deterministic, threads] {
            #expect(report.accepted == 1)
            #expect(report.refused == 2, "\(report.mode)")
            #expect(report.refusedByReason.contains { $0.reason == "unknownBooking" && $0.count == 1 })
            #expect(report.accepted + report.refused + report.cancelled == 3)
            #expect(report.passed)
        }
    }

    /// A store that ignores the rolling horizon is caught as I3 in threads mode too.
    @Test func threadsModeChecksTheRollingHorizon() async throws {
        var s = Fixtures.small(operations: 600)
        s.policy.rollingDays = 0
        s.workload?.mix = .init(reserve: 100)
        let p = try Fixtures.prepared(s)
        var lax = s
        lax.policy.rollingDays = nil
        let laxRules = try Fixtures.prepared(lax).rules
        let report = try await Simulator.runThreads(
            p, service: LimitIgnoringService(inner: Scheduler(rules: laxRules), strict: p.rules), threads: 2)
        #expect(report.invariants.first { $0.id == "I3" }?.status == "fail", "\(report.summary)")
        let strict = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 2)
        #expect(strict.invariants.first { $0.id == "I3" }?.status == "pass", "\(strict.summary)")
    }

    /// A scenario whose step expectation fails and whose count expectation fails once steps go.
    func failingScenario() -> Scenario {
        var s = Fixtures.small(operations: 300)
        s.steps = [
            Step(op: .reserve, user: 1, station: "s1", socket: "1", date: Self.day, hour: 9, expect: "accepted"),
            Step(op: .reserve, user: 2, station: "s1", socket: "2", date: Self.day, hour: 9, expect: "slotTaken"),
        ]
        s.expectations = Expectations(counts: ["accepted": CountRange(min: 150)])
        return s
    }

    /// --check-determinism reruns with the first run's options: a failing scenario is deterministic.
    @Test func determinismCheckOfAFailingScenarioAgrees() throws {
        let p = try Fixtures.prepared(failingScenario())
        let options = RunOptions(reproduce: "schedule-sim run failing.json")
        let first = try Simulator.runDeterministic(p, options: options)
        #expect(!first.passed)
        #expect(first.failures.first?.reproduce == "schedule-sim run failing.json")
        #expect(try Simulator.checkDeterminism(p, first: first, options: options).same)
        #expect(try !Simulator.checkDeterminism(p, first: first, options: RunOptions()).same)
    }

    /// --shrink keeps the step whose expectation failed, and the failure it had.
    @Test func shrinkKeepsTheFailingStep() throws {
        let s = failingScenario()
        let first = try Simulator.runDeterministic(Fixtures.prepared(s))
        #expect(first.verdict == "expectation failed")
        let smaller = Shrinker.shrink(s, file: "test.json", failing: first) { try? Simulator.runDeterministic($0) }
        #expect(smaller.steps?.contains(s.steps?[1] ?? Step(op: .query)) == true)
        let again = try Simulator.runDeterministic(Fixtures.prepared(smaller))
        #expect(Shrinker.sameFailure(first, again))
        #expect(again.failures.contains { $0.message.contains("expected slotTaken, got accepted") })
    }
}
