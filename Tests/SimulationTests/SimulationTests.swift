import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

@Suite struct DeterministicRuns {
    @Test func smallScenarioPasses() throws {
        let report = try Simulator.runDeterministic(Fixtures.prepared(Fixtures.small()))
        #expect(report.verdict == "pass", "\(report.summary)")
        #expect(report.operations == 3_000)
        #expect(report.accepted > 0)
        #expect(report.refusedByReason.contains { $0.reason == "slotTaken" })
        #expect(report.invariants.filter { $0.status == "fail" }.isEmpty)
    }

    @Test func sameSeedGivesByteIdenticalReportAndHistory() throws {
        let p = try Fixtures.prepared(Fixtures.small())
        var reports: [Data] = []
        var histories: [Data] = []
        for i in 0..<2 {
            let path = Fixtures.temporaryPath("history-\(i).jsonl")
            defer { try? FileManager.default.removeItem(atPath: path) }
            reports.append(try Simulator.runDeterministic(p, options: RunOptions(historyPath: path)).json())
            histories.append(try #require(FileManager.default.contents(atPath: path)))
        }
        #expect(reports[0] == reports[1])
        #expect(histories[0] == histories[1])
        #expect(histories[0].count > 100_000)
    }

    @Test func differentSeedsDiffer() throws {
        let a = try Simulator.runDeterministic(Fixtures.prepared(Fixtures.small(seed: 1)))
        let b = try Simulator.runDeterministic(Fixtures.prepared(Fixtures.small(seed: 2)))
        #expect(a.json() != b.json())
    }

    @Test func scriptedExpectationsAreChecked() throws {
        var s = Fixtures.small(operations: 0)
        s.steps = [
            Step(
                op: .reserve, user: 1, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9,
                label: "a", expect: "accepted"),
            Step(
                op: .reserve, user: 2, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9,
                expect: "slotTaken"),
            Step(op: .cancel, user: 2, booking: "a", expect: "notOwner"),
            Step(op: .cancel, user: 1, booking: "a", expect: "accepted"),
            Step(
                op: .reserve, user: 2, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9,
                expect: "accepted"),
        ]
        let pass = try Simulator.runDeterministic(Fixtures.prepared(s))
        #expect(pass.verdict == "pass", "\(pass.summary)")
        #expect(pass.expectations.count == 5)
        s.steps?[1].expect = "accepted"
        let fail = try Simulator.runDeterministic(Fixtures.prepared(s))
        #expect(fail.verdict == "expectation failed")
        #expect(fail.exitCode == 1)
        #expect(fail.failures.first?.message.contains("expected accepted, got slotTaken") == true)
    }

    @Test func shrinkKeepsOnlyWhatFails() throws {
        var s = Fixtures.small(operations: 500)
        var steps: [Step] = []
        for h in 8..<18 {
            steps.append(
                Step(
                    op: .reserve, user: UInt64(h), station: "s1", socket: "2", date: Fixtures.date("2018-06-07"),
                    hour: h, expect: "accepted"))
        }
        steps[6].expect = "slotTaken"  // wrong on purpose
        s.steps = steps
        let smaller = Shrinker.shrink(s, file: "test.json") { candidate in
            (try? Simulator.runDeterministic(candidate))?.passed == false
        }
        #expect(smaller.workload?.operations == nil || smaller.workload?.operations == 0)
        #expect(smaller.steps?.count == 1)
        #expect(smaller.steps?.first?.hour == 14)
    }

    @Test func historyIsStreamedAsJSONLines() throws {
        let path = Fixtures.temporaryPath("h.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Simulator.runDeterministic(
            Fixtures.prepared(Fixtures.small(operations: 200)), options: RunOptions(historyPath: path))
        let text = try #require(
            FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) })
        let lines = text.split(separator: "\n")
        #expect(lines.count == 200)
        for line in lines.prefix(50) {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any])
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
    }
}

@Suite struct ThreadsRuns {
    @Test func correctSchedulerPassesUnderConcurrency() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 4_000))
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules, shards: 4), threads: 4)
        #expect(report.verdict == "pass", "\(report.summary)")
        #expect(report.linearizability?.status == "linearizable")
        #expect((report.linearizability?.partitions ?? 0) > 10)
        #expect(report.timing?.p99Microseconds != nil)
    }

    @Test func doubleBookingStoreIsCaught() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 2_000))
        let broken = DoubleBookingService(inner: Scheduler(rules: p.rules))
        let report = try await Simulator.runThreads(p, service: broken, threads: 2)
        #expect(report.verdict == "invariant broken")
        #expect(report.exitCode == 1)
        #expect(report.invariants.first { $0.id == "I1" }?.status == "fail")
        // Its second bookings of a slot are never stored either: acknowledged and lost.
        #expect(report.invariants.first { $0.id == "I5" }?.status == "fail")
        #expect(report.linearizability?.status == "not linearizable")
    }

    /// Timeline changes run in threads mode too, concurrently with the workers, and are checked.
    @Test func timelineChangesRunConcurrently() async throws {
        var s = Fixtures.small(operations: 3_000)
        s.workload?.mix.availability = 0
        s.timeline = [
            TimedChange(
                atOperation: 500, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hours: .closed,
                onBookings: .displace),
            TimedChange(
                atOperation: 3_000, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hours: nil,
                onBookings: nil),
        ]
        let p = try Fixtures.prepared(s)
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules, shards: 2), threads: 3)
        #expect(report.verdict == "pass", "\(report.summary)")
        #expect(report.availabilityChanges == 2)
        #expect(report.displaced > 0, "the closure at operation 500 displaces bookings made before it")
        #expect(report.refusedByReason.contains { $0.reason == "socketClosed" })
    }

    /// A store that answers availability changes without applying them is caught (I4).
    @Test func closureIgnoringStoreIsCaught() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 4_000))
        let broken = ClosureIgnoringService(inner: Scheduler(rules: p.rules))
        let report = try await Simulator.runThreads(p, service: broken, threads: 2)
        #expect(report.invariants.first { $0.id == "I4" }?.status == "fail", "\(report.summary)")
        #expect(report.exitCode == 1)
    }

    @Test func limitIgnoringStoreIsCaught() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 2_000, users: 5, limit: 2))
        let lax = try Rules(catalog: p.rules.catalog, policy: Policy(maxUpcomingBookings: 1_000))
        let broken = LimitIgnoringService(inner: Scheduler(rules: lax), strict: p.rules)
        let report = try await Simulator.runThreads(p, service: broken, threads: 2)
        #expect(report.invariants.first { $0.id == "I2" }?.status == "fail", "\(report.summary)")
        #expect(report.exitCode == 1)
    }
}

@Suite struct Linearizability {
    func op(_ kind: BookingOperation.Kind, _ booking: UInt64, _ invoke: Int64, _ complete: Int64) -> BookingOperation {
        BookingOperation(
            kind: kind, booking: booking, user: 1, now: 0, start: 10_000, limit: 5, invoke: invoke, complete: complete)
    }

    func verdict(_ ops: [BookingOperation], budget: Int = 100_000) -> LinearizabilityVerdict {
        LinearizabilityChecker.check(
            SlotSpecification(ops), intervals: ops.map { ($0.invoke, $0.complete) }, budget: budget)
    }

    @Test func sequentialDoubleBookingIsNotLinearizable() {
        #expect(verdict([op(.reserved, 1, 0, 10), op(.reserved, 2, 20, 30)]) == .notLinearizable)
    }

    @Test func takenBeforeAnyBookingIsNotLinearizable() {
        #expect(verdict([op(.refusedTaken, 0, 0, 10), op(.reserved, 1, 20, 30)]) == .notLinearizable)
    }

    @Test func overlappingOperationsCanBeOrdered() {
        // The refusal overlaps the reservation, so it may come after it.
        #expect(verdict([op(.refusedTaken, 0, 0, 25), op(.reserved, 1, 5, 20)]) == .linearizable)
        // Cancel then rebook, overlapping.
        #expect(
            verdict([op(.reserved, 1, 0, 10), op(.released, 1, 11, 30), op(.reserved, 2, 12, 40)]) == .linearizable)
    }

    @Test func userLimitHistory() {
        let limit = { (kind: BookingOperation.Kind, b: UInt64, i: Int64, c: Int64) in
            BookingOperation(kind: kind, booking: b, user: 1, now: 0, start: 10_000, limit: 1, invoke: i, complete: c)
        }
        let bad = [limit(.reserved, 1, 0, 10), limit(.reserved, 2, 20, 30)]
        #expect(
            LinearizabilityChecker.check(UserSpecification(bad), intervals: bad.map { ($0.invoke, $0.complete) })
                == .notLinearizable)
        let good = [limit(.reserved, 1, 0, 10), limit(.released, 1, 12, 15), limit(.reserved, 2, 20, 30)]
        #expect(
            LinearizabilityChecker.check(UserSpecification(good), intervals: good.map { ($0.invoke, $0.complete) })
                == .linearizable)
    }

    @Test func boundAnswersUnknown() {
        // Many overlapping refusals before an impossible end: the search gives up.
        var ops = (0..<40).map { i in op(.refusedLimit, 0, Int64(i), 1_000) }
        ops.append(op(.refusedTaken, 0, 2_000, 2_001))
        #expect(verdict(ops, budget: 200) == .unknown)
    }
}
