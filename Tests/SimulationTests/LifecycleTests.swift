import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// Issue 16 in the simulator: holds, confirms, releases, reschedules and any-socket requests in
/// the workload mix and in scripted steps, checked against the reference model (I13-I17).
@Suite struct LifecycleTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Scenarios").standardizedFileURL.path

    /// The bundled lifecycle scenario: every scripted answer as written, and a workload of all
    /// five lifecycle commands on which the ledger and the model agree command by command.
    @Test func bundledLifecycleScenarioPasses() throws {
        let p = try Scenario.load(path: Self.folder + "/lifecycle.json").prepare(file: "lifecycle.json")
        let report = try Simulator.runDeterministic(p)
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.count >= 26 && report.expectations.allSatisfy(\.pass))
        let lifecycle = try #require(report.lifecycle)
        #expect(lifecycle.holds > 0 && lifecycle.confirmed > 0 && lifecycle.releasedHolds > 0)
        #expect(lifecycle.rescheduled > 0 && lifecycle.anySocket > 0)
        for id in ["I13", "I14", "I15", "I16", "I17"] {
            #expect(report.invariants.first { $0.id == id }?.status == "pass", "\(id)")
        }
    }

    /// A scenario with lifecycle weights draws the old operations as before: its lifecycle
    /// weights only add kinds after `retry`, so with all of them 0 the history is unchanged.
    @Test func zeroLifecycleWeightsDrawAsBefore() throws {
        var with = Fixtures.small()
        with.workload?.mix.hold = 0
        with.workload?.mix.anySocket = 0
        let paths = [Fixtures.temporaryPath("a.jsonl"), Fixtures.temporaryPath("b.jsonl")]
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        _ = try Simulator.runDeterministic(
            Fixtures.prepared(Fixtures.small()), options: RunOptions(historyPath: paths[0]))
        _ = try Simulator.runDeterministic(Fixtures.prepared(with), options: RunOptions(historyPath: paths[1]))
        #expect(FileManager.default.contents(atPath: paths[0]) == FileManager.default.contents(atPath: paths[1]))
    }

    /// Each lifecycle step kind runs in a small scenario and gives the rules' answer.
    @Test func lifecycleStepsGiveTheRulesAnswers() throws {
        var s = Fixtures.small(operations: 0)
        let d = Fixtures.date("2018-06-07")
        s.steps = [
            Step(op: .hold, user: 1, station: "s1", socket: "1", date: d, hour: 9, expect: "accepted"),
            Step(op: .reserve, user: 2, station: "s1", socket: "1", date: d, hour: 9, expect: "slotHeld"),
            Step(op: .confirm, user: 1, station: "s1", socket: "1", date: d, hour: 9, label: "a", expect: "accepted"),
            Step(
                op: .reschedule, user: 1, station: "s1", socket: "2", date: d, hour: 10, booking: "a",
                expect: "accepted"),
            Step(op: .query, user: 2, station: "s1", socket: "1", date: d, hour: 9, expect: "free"),
            Step(op: .hold, user: 3, station: "s1", socket: "1", date: d, hour: 11, expect: "accepted"),
            Step(op: .releaseHold, user: 3, station: "s1", socket: "1", date: d, hour: 11, expect: "accepted"),
            Step(op: .anySocket, user: 4, station: "s1", date: d, hour: 10, expect: "accepted", connector: "ccs"),
            Step(
                op: .anySocket, user: 5, station: "s1", date: d, hour: 10, expect: "noMatchingSocketFree",
                connector: "CCS"),
        ]
        let report = try Simulator.runDeterministic(Fixtures.prepared(s))
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.map(\.actual) == s.steps?.compactMap(\.expect))
    }

    /// Lifecycle step fields are checked with their path.
    @Test(arguments: [
        (
            Step(op: .anySocket, user: 1, station: "s1", date: Fixtures.date("2018-06-07"), hour: 9),
            "steps[0].connector"
        ),
        (
            Step(
                op: .anySocket, user: 1, station: "s1", date: Fixtures.date("2018-06-07"), hour: 9, connector: "CCS",
                minimumPowerKW: -1), "steps[0].minimumPowerKW"
        ),
        (Step(op: .hold, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9), "steps[0].user"),
        (
            Step(op: .reschedule, user: 1, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9),
            "steps[0].booking"
        ),
    ])
    func badLifecycleStepsAreRefusedWithTheirPath(step: Step, path: String) throws {
        var s = Fixtures.small(operations: 0)
        s.steps = [step]
        let error = #expect(throws: ScenarioError.self) { try Fixtures.prepared(s) }
        #expect(error?.path == path)
    }

    /// A ledger that disagrees with the model on a lifecycle rule is reported under the
    /// invariant it breaks: here the model is given a shorter hold (I16: the ledger confirms a
    /// hold the model has seen expire) or no holds at all (I17: the ledger admits a hold past
    /// the model's maxHoldsPerUser).
    @Test(arguments: [("I16", Int64(60), 1), ("I17", Int64(600), 0)])
    func disagreementIsNamedByItsInvariant(invariant: String, modelHoldSeconds: Int64, modelMaxHolds: Int) throws {
        var s = Fixtures.small(operations: 0)
        let d = Fixtures.date("2018-06-07")
        s.steps = [
            Step(op: .hold, user: 1, station: "s1", socket: "1", date: d, hour: 9),
            Step(
                op: .confirm, at: Fixtures.time("2018-06-06T08:02:00Z"), user: 1, station: "s1", socket: "1", date: d,
                hour: 9),
        ]
        let p = try Fixtures.prepared(s)
        var policy = p.rules.policy
        policy.holdSeconds = modelHoldSeconds
        policy.maxHoldsPerUser = modelMaxHolds
        var run = DeterministicRun(p, options: RunOptions(), history: nil)
        run.model = ReferenceModel(
            stations: p.rules.catalog.stations, policy: policy, clock: CatalogClock(p.rules.catalog))
        run.execute()
        let report = run.report()
        #expect(report.invariants.first { $0.id == invariant }?.status == "fail", "\(report.summary)")
        #expect(report.invariants.filter { $0.status == "fail" }.map(\.id) == [invariant])
    }
}
