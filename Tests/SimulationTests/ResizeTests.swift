import SlotScheduler
import Testing

@testable import SlotSimulation

/// `schedule-sim --operations N`: the workload takes N operations, the count expectations written
/// for the scenario's own size are dropped, the invariants to check are kept.
@Suite struct ResizeTests {
    static func withExpectations() -> Scenario {
        var s = Fixtures.small(operations: 3_000)
        s.expectations = Expectations(
            invariants: ["I1", "I2"],
            counts: ["operations": CountRange(exactly: 3_000), "accepted": CountRange(min: 1)])
        return s
    }

    @Test func aResizedRunPassesWithoutTheCountsItCannotMeet() throws {
        let original = try Simulator.runDeterministic(Fixtures.prepared(Self.withExpectations()))
        #expect(original.verdict == "pass", "\(original.summary)")
        #expect(original.expectations.count == 2)

        let (resized, dropped) = try Self.withExpectations().resized(operations: 500, file: "small.json")
        #expect(dropped)
        #expect(resized.workload?.operations == 500)
        #expect(resized.expectations?.counts == nil)
        #expect(resized.expectations?.invariants == ["I1", "I2"])
        let report = try Simulator.runDeterministic(Fixtures.prepared(resized))
        #expect(report.verdict == "pass", "\(report.summary)")
        #expect(report.operations == 500)
        #expect(report.expectations.isEmpty)
        #expect(report.invariants.filter { $0.status != "not checked" }.map(\.id) == ["I1", "I2"])
    }

    @Test func resizingToItsOwnSizeKeepsEverything() throws {
        let s = Self.withExpectations()
        let (same, dropped) = try s.resized(operations: 3_000, file: "small.json")
        #expect(!dropped)
        #expect(same == s)
    }

    @Test func outOfRangeOrNoWorkloadIsAClearError() throws {
        let s = Self.withExpectations()
        let tooMany = #expect(throws: ScenarioError.self) {
            try s.resized(operations: ScenarioLimits.maxOperations + 1, file: "small.json")
        }
        #expect(tooMany?.path == "--operations")
        #expect(throws: ScenarioError.self) { try s.resized(operations: -1, file: "small.json") }
        var stepsOnly = s
        stepsOnly.workload = nil
        let none = #expect(throws: ScenarioError.self) { try stepsOnly.resized(operations: 10, file: "steps.json") }
        #expect(none?.path == "workload")
        #expect(none?.file == "steps.json")
    }
}
