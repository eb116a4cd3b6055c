import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// The checks' compact history gives back every operation exactly as stored, in the order an
/// array sorted by invoke gives, whatever its fields (escapes kept whole included).
@Suite struct CompactHistoryTests {
    /// Operations with every field drawn wide: times that jump by hours and go backwards, long
    /// and negative durations, users far from the first, process -1 and 300, every outcome,
    /// bookings, repeats, changes.
    static func operations(count: Int, seed: UInt64) -> [TimedOperation] {
        var rng = SplitMix64(seed: seed)
        var time: Int64 = 1_000
        return (0..<count).map { i in
            time += Int64(rng.below(5_000))
            if rng.below(50) == 0 { time += Int64(rng.below(1 << 20)) << 20 }
            if rng.below(80) == 0 { time -= Int64(rng.below(1 << 16)) }
            let kind = TimedOperation.Kind(rawValue: UInt8(rng.below(4))) ?? .reserve
            var op = TimedOperation(
                process: [-1, 0, 1, 2, 3, 300][rng.below(6)], kind: kind,
                user: rng.below(20) == 0 ? UInt64.max - UInt64(rng.below(9)) : 1 + UInt64(rng.below(100_000)),
                cell: kind == .cancel ? -1 : Int32(rng.below(rng.below(30) == 0 ? 1 << 25 : 5_000)),
                booking: rng.below(3) == 0 ? UInt64(rng.below(1 << 20)) << UInt64(rng.below(44)) : 0,
                now: 1_528_261_200 + Int64(i / 10) + (rng.below(40) == 0 ? Int64(rng.below(1 << 20)) : 0),
                invoke: time,
                complete: time + [0, 1, 65_534, 65_535, 70_000, 5_000_000_000, -3][rng.below(7)],
                displaced: kind == .change && rng.below(2) == 0 ? [1, 2] : [],
                detail: kind == .change ? "st-00/1 2018-06-06 closed" : nil)
            if kind == .reserve && rng.below(10) == 0 {
                op.repeatOf = 7
                op.requestID = "w1-\(i)-seed7 \"quoted\""
            }
            op.outcome = Int16(rng.below(23)) - 2
            op.resolvedIndeterminate = rng.below(30) == 0
            return op
        }
    }

    static func same(_ a: TimedOperation, _ b: TimedOperation) -> Bool {
        (a.process, a.cell, a.user, a.booking, a.now) == (b.process, b.cell, b.user, b.booking, b.now)
            && (a.invoke, a.complete, a.outcome, a.kind, a.resolvedIndeterminate)
                == (b.invoke, b.complete, b.outcome, b.kind, b.resolvedIndeterminate)
            && a.repeatOf == b.repeatOf && a.requestID == b.requestID && a.displaced == b.displaced
            && a.detail == b.detail
    }

    @Test(arguments: [0, 1, 1_023, 1_024, 1_025, 5_000] as [Int])
    func readsBackWhatWasStoredInInvokeOrder(count: Int) {
        let ops = Self.operations(count: count, seed: UInt64(count))
        var history = CompactHistory(firstUser: 1)
        for op in ops { history.append(op) }
        #expect(history.count == ops.count)
        #expect(zip(history, ops).allSatisfy { Self.same($0, $1) })
        var sorted = ops
        sorted.sortByInvoke()
        history.sortByInvoke()
        #expect(zip(history, sorted).allSatisfy { Self.same($0, $1) })
        // Rewriting one in place (as an indeterminate outcome is resolved) keeps the others.
        guard count > 2 else { return }
        var resolved = history[1]
        resolved.outcome = -1
        resolved.booking = 99
        resolved.complete = resolved.invoke + 10_000_000_000
        resolved.resolvedIndeterminate = true
        history[1] = resolved
        sorted[1] = resolved
        #expect(zip(history, sorted).allSatisfy { Self.same($0, $1) })
    }

    /// Linearizability partitions gathered in small batches give the report one batch gives, for
    /// a sound store and for one that loses commits (failing I5 and I11).
    @Test(arguments: [false, true])
    func smallPartitionBatchesGiveTheSameReport(losing: Bool) async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 3_000))
        let path = Fixtures.temporaryPath("batches.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scheduler = Scheduler(rules: p.rules)
        let service: any BookingService = losing ? CommitLosingService(inner: scheduler) : scheduler
        _ = try await Simulator.runThreads(p, service: service, threads: 3, options: RunOptions(historyPath: path))
        let bookings = BookingsByID(try await service.allBookingsByID(), p)
        func report(batch: Int) throws -> Report {
            var analysis = ThreadsAnalysis(
                p: p, history: try Simulator.readTimedHistory(path: path, p), finalBookings: bookings,
                options: RunOptions())
            analysis.partitionBatchSize = batch
            analysis.run(budget: 2_000_000)
            return analysis.report(threads: 3, elapsed: 0, operations: 3_000)
        }
        let whole = try report(batch: 1 << 20)
        #expect((whole.linearizability?.partitions ?? 0) > 30)
        #expect(whole.invariants.contains { $0.status == "fail" } == losing, "\(whole.summary)")
        for batch in [1, 7, 100] {
            let batched = try report(batch: batch)
            #expect(batched.linearizability == whole.linearizability)
            #expect(batched.invariants == whole.invariants)
            #expect(batched.failures.map(\.message) == whole.failures.map(\.message))
        }
    }
}

/// Percentiles from counts by bucket and a second pass are those of the sorted list.
@Suite struct LatencyPercentiles {
    @Test(arguments: [1, 2, 3, 100, 10_000] as [Int])
    func matchSortingEveryLatency(count: Int) {
        var rng = SplitMix64(seed: UInt64(count))
        let values: [Int64] = (0..<count).map { _ in
            switch rng.below(10) {
            case 0: -Int64(rng.below(1_000))
            case 1: Int64(UInt32.max) + Int64(rng.below(3))
            case 2: Int64(rng.below(1 << 20)) << 12
            case 3: Int64(rng.below(600))
            default: Int64(rng.below(70_000))
            }
        }
        var latencies = Latencies()
        for v in values { latencies.add(v) }
        let sorted = values.sorted()
        let ranks = [0, count / 2, count - 1, min(count - 1, Int(Double(count) * 0.99))]
        #expect(latencies.values(at: ranks, rereading: values.reversed()) == ranks.map { sorted[$0] })
        // Buckets follow the values' order.
        let buckets = sorted.compactMap { UInt32(exactly: $0) }.map(Latencies.bucket)
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0 <= $1 })
    }
}

/// A call's result is typed in the public API; its code (the compact form) maps both ways.
@Suite struct TypedOutcomes {
    @Test func everyOutcomeMapsToItsCodeAndBack() {
        let all: [TimedOperation.Outcome] =
            [.accepted, .indeterminate] + Rejection.Reason.allCases.map { .refused($0) }
        var op = TimedOperation(process: 0, kind: .reserve, user: 1, now: 0, invoke: 0, complete: 0)
        #expect(op.result == .accepted)
        for outcome in all {
            op.result = outcome
            #expect(op.result == outcome)
            #expect(TimedOperation.Outcome(code: outcome.code) == outcome)
            if case .refused(let reason) = outcome { #expect(op.reason == reason) } else { #expect(op.reason == nil) }
        }
        #expect(Set(all.map(\.code)).count == all.count)
    }
}
