import SlotScheduler
import Testing

@testable import SlotSimulation

/// Reminders in the simulator: scripted reservations that ask for one, moved, cancelled and
/// refused, after which the run compares the reminders due with the model's (I10).
@Suite struct ReminderStepTests {
    /// Steps on 2018-06-07 (BST) from 2018-06-06 08:00 UTC: reminders that are kept, moved by a
    /// reschedule, dropped by a cancel, and refused (before now; out of range).
    static func scenario() -> Scenario {
        var s = Fixtures.small(operations: 400)
        let d = Fixtures.date("2018-06-07")
        s.steps = [
            Step(
                op: .reserve, user: 1, station: "s1", socket: "1", date: d, hour: 9, label: "a", expect: "accepted",
                reminderSeconds: 3_600),
            Step(
                op: .reserve, user: 2, station: "s1", socket: "2", date: d, hour: 9, expect: "accepted",
                reminderSeconds: 1_800),
            Step(
                op: .reserve, user: 3, station: "s1", socket: "1", date: d, hour: 10, label: "b", expect: "accepted",
                reminderSeconds: 7_200),
            Step(
                op: .reschedule, user: 1, station: "s1", socket: "2", date: d, hour: 14, booking: "a",
                expect: "accepted"),
            Step(op: .cancel, user: 3, booking: "b", expect: "accepted"),
            Step(
                op: .reserve, user: 4, station: "s1", socket: "1", date: d, hour: 11, expect: "reminderInPast",
                reminderSeconds: 100_000),
            Step(
                op: .reserve, user: 5, station: "s1", socket: "1", date: d, hour: 12, expect: "invalidReminder",
                reminderSeconds: -1),
        ]
        return s
    }

    /// Every scripted answer as written, and the reminders due (over all time and around each
    /// one) as the model says, after the workload ran on top.
    @Test func remindersDueMatchTheModel() throws {
        let report = try Simulator.runDeterministic(Fixtures.prepared(Self.scenario()))
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.count == 7 && report.expectations.allSatisfy(\.pass))
        #expect(report.invariants.first { $0.id == "I10" }?.status == "pass")
    }

    /// The same steps in threads mode: the service gets the reminders, the answers are the same,
    /// and the history is linearizable (the refusals for a reminder are the rules' own).
    @Test func threadsModeGivesTheSameAnswers() async throws {
        let p = try Fixtures.prepared(Self.scenario())
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 2)
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.count == 7 && report.expectations.allSatisfy(\.pass))
    }
}
