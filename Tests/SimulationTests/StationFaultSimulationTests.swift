import SlotScheduler
import SlotSchedulerOCPP
import Testing

@testable import SlotSimulation

/// Charger faults in the simulator (issue 39): `Scenarios/station-faults.json` replays
/// `stationEvents` as the OCPP bridge applies them, in both modes, and I20 holds; a store that
/// ignores the closures is caught. The fault mutants name this suite (Scripts/mutants/mutants.py).
@Suite struct StationFaultSimulationTests {
    static func prepared() throws -> PreparedScenario {
        try Scenario.load(path: LifecycleTests.folder + "/station-faults.json").prepare(file: "station-faults.json")
    }

    @Test func bundledFaultScenarioPassesDeterministically() throws {
        let p = try Self.prepared()
        #expect(!p.faultedCells.isEmpty)
        let report = try Simulator.runDeterministic(p)
        #expect(report.passed, "\(report.summary)")
        #expect(report.invariants.first { $0.id == "I20" }?.status == "pass")
        #expect(report.expectations.count == 2 && report.expectations.allSatisfy(\.pass))
    }

    @Test func bundledFaultScenarioPassesInThreadsMode() async throws {
        let p = try Self.prepared()
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 3)
        #expect(report.passed, "\(report.summary)")
        #expect(report.invariants.first { $0.id == "I20" }?.status == "pass")
    }

    /// The faults compile to the bridge's changes: socket 1's first closure is the hour of the
    /// fault and the next (the horizon of 2), made before the operation that reported it.
    @Test func aFaultClosesItsHourAndTheHorizonAtItsOperation() throws {
        let p = try Self.prepared()
        let first = try #require(p.timeline.first)
        #expect(first.atOperation == 2000)
        #expect(first.rule == .displace)
        // Operation 2000 is at 05:00Z + 4000 s = 07:06:40 BST: hours 7 and 8 close.
        #expect(first.change.socket == "1")
        #expect(first.change.hours.map { Array($0) } == Array(0..<24).filter { $0 != 7 && $0 != 8 })
        // Socket 2 stays unavailable to the end: every later hour of its day is closed.
        let date = try LocalDate(parsing: "2018-06-08")
        for hour in 11...18 {
            #expect(p.isFaulted(Slot(station: "depot", socket: "2", date: date, hour: hour)), "\(hour)")
        }
        // Socket 1 came back at 09:53 BST: its started hours stay closed, the later reopen.
        #expect(p.isFaulted(Slot(station: "depot", socket: "1", date: date, hour: 9)))
        #expect(!p.isFaulted(Slot(station: "depot", socket: "1", date: date, hour: 10)))
        #expect(!p.isFaulted(Slot(station: "depot", socket: "3", date: date, hour: 9)))
    }

    /// A store that answers every change as made and applies none keeps bookings on faulted
    /// hours: I20 says so.
    @Test func aStoreThatIgnoresFaultsIsCaught() async throws {
        let p = try Self.prepared()
        let report = try await Simulator.runThreads(
            p, service: ClosureIgnoringService(inner: Scheduler(rules: p.rules)), threads: 2)
        #expect(!report.passed)
        #expect((report.invariants.first { $0.id == "I20" }?.violations ?? 0) > 0)
    }
}
