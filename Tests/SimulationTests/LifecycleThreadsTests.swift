import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// Issue 16 in threads mode: holds, confirms, releases, reschedules and any-socket requests from
/// real threads against one `Scheduler`, the history checked for I13-I17 and linearizability.
/// The lifecycle mutants name this suite (Scripts/mutants/mutants.py) so that each shows whether
/// the threads-mode checks catch it.
@Suite struct LifecycleThreadsTests {
    static let folder = LifecycleTests.folder

    /// Threads mode drives the lifecycle commands from real threads: the bundled scenario's
    /// steps answer as written and its workload's holds, confirms, releases, moves and
    /// any-socket bookings keep I13-I17 and stay linearizable per slot and per user.
    @Test func bundledLifecycleScenarioPassesInThreadsMode() async throws {
        let p = try Scenario.load(path: Self.folder + "/lifecycle.json").prepare(file: "lifecycle.json")
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 3)
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.count >= 26 && report.expectations.allSatisfy(\.pass))
        #expect(report.linearizability?.status == "linearizable")
        let lifecycle = try #require(report.lifecycle)
        #expect(lifecycle.holds > 0 && lifecycle.confirmed > 0 && lifecycle.releasedHolds > 0)
        #expect(lifecycle.rescheduled > 0 && lifecycle.anySocket > 0)
        for id in ["I13", "I14", "I15", "I16", "I17"] {
            #expect(report.invariants.first { $0.id == id }?.status == "pass", "\(id)")
        }
    }

    /// A store whose holds outlive the policy's (ten times longer, and five per user) is caught
    /// in threads mode: confirms after expiry and slots refused as held after it (I16), more
    /// live holds than a user may have (I17).
    @Test func longHoldsAreCaughtInThreadsMode() async throws {
        try await Fixtures.expectLaxStoreCaught(Self.folder + "/lifecycle.json", breaking: ["I16", "I17"]) {
            $0.holdSeconds = ($0.holdSeconds ?? 600) * 10
            $0.maxHoldsPerUser = 5
        }
    }

    /// Moves race for the same few slots: one socket, one day, 200 users with bookings at two
    /// hours moving them to any hour of the day from four threads. A move decided under one lock
    /// and made under another (mutant `reschedule-race`) puts two bookings in one slot: I14.
    @Test func contendedMovesNeverShareASlot() async throws {
        var s = Fixtures.small(operations: 8_000, users: 200)
        s.stations[0].sockets.removeLast()
        s.workload?.mix = .init(reserve: 10, reschedule: 90)
        s.workload?.dates = .init(from: Fixtures.date("2018-06-07"), days: 1)
        s.workload?.hours = HourSet(10..<12)
        s.workload?.hotness = nil
        let p = try Fixtures.prepared(s)
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 4)
        #expect(report.passed, "\(report.summary)")
        #expect((report.lifecycle?.rescheduled ?? 0) > 100)
        #expect(report.invariants.first { $0.id == "I14" }?.status == "pass")
    }
}
