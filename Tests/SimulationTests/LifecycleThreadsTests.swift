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
        var s = try Scenario.load(path: Self.folder + "/lifecycle.json")
        s.steps = []
        let p = try s.prepare(file: "lifecycle.json")
        var lax = s
        lax.policy.holdSeconds = (s.policy.holdSeconds ?? 600) * 10
        lax.policy.maxHoldsPerUser = 5
        let laxRules = try lax.prepare(file: "lax.json").rules
        let report = try await Simulator.runThreads(
            p, service: LimitIgnoringService(inner: Scheduler(rules: laxRules), strict: p.rules), threads: 2)
        #expect(!report.passed)
        for id in ["I16", "I17"] {
            #expect((report.invariants.first { $0.id == id }?.violations ?? 0) > 0, "\(id)")
        }
    }
}
