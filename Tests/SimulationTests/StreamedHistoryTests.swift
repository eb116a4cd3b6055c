import Foundation
import SlotScheduler
import Synchronization
import Testing

@testable import SlotSimulation

/// At each call, counts the invoke lines already in the history file being written: with the
/// history flushed per operation, the call's own invoke line is there before the call runs.
struct HistoryPeekingService: ForwardingService {
    let inner: Scheduler
    let target: String
    /// (calls, calls whose invoke line was not yet in the file)
    final class Counts: Sendable { let value = Mutex<(calls: Int, unseen: Int)>((0, 0)) }
    let counts = Counts()

    func invokeLinesWritten() -> Int {
        guard let partial = PartialFiles.shared.current.first(where: { $0.hasPrefix(target + ".") }),
            let data = FileManager.default.contents(atPath: partial)
        else { return 0 }
        return data.split(separator: 10).count { $0.contains("\"type\":\"invoke\"".utf8) }
    }

    func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        let written = invokeLinesWritten()
        counts.value.withLock { counts in
            counts.calls += 1
            if written < counts.calls { counts.unseen += 1 }
        }
        return try inner.reserve(request, at: now)
    }
}

@Suite struct StreamedHistoryTests {
    func reservesOnly(_ operations: Int) throws -> PreparedScenario {
        var s = Fixtures.small(operations: operations)
        s.workload?.mix = .init(reserve: 1)
        return try Fixtures.prepared(s)
    }

    /// A run that may be killed writes each invoke line before its call: a kill at any moment
    /// leaves a history that shows every call the store may have applied.
    @Test(arguments: [true, false])
    func invokeLinesAreWrittenBeforeTheCall(flushEachOperation: Bool) async throws {
        let p = try reservesOnly(200)
        let path = Fixtures.temporaryPath("peek.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let service = HistoryPeekingService(inner: Scheduler(rules: p.rules), target: path)
        let report = try await Simulator.runThreads(
            p, service: service, threads: 1,
            options: RunOptions(historyPath: path, flushHistoryEachOperation: flushEachOperation))
        #expect(report.passed, "\(report.summary)")
        let counts = service.counts.value.withLock { $0 }
        #expect(counts.calls == 200)
        if flushEachOperation {
            #expect(counts.unseen == 0)
        } else {
            // Buffered: the 64 KiB buffer holds the first calls' lines back.
            #expect(counts.unseen > 0)
        }
    }

    /// The history is the file the checks read: a run without --history leaves no file behind,
    /// and one with it gives a file whose every operation has an invoke and a return line.
    @Test func theCheckedHistoryIsTheFileWritten() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 2_000))
        let path = Fixtures.temporaryPath("streamed.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let report = try await Simulator.runThreads(
            p, service: Scheduler(rules: p.rules), threads: 3, options: RunOptions(historyPath: path))
        #expect(report.passed, "\(report.summary)")
        let ops = try Simulator.readTimedHistory(path: path, p)
        #expect(!ops.contains { $0.outcome == -2 })
        #expect(ops.count(where: { $0.kind == .reserve && $0.outcome == -1 && $0.repeatOf == 0 }) == report.accepted)
        #expect(ops.count(where: { $0.kind == .change }) == report.availabilityChanges)
        // Availability changes carry what they asked for, so a reader can replay the hours.
        #expect(ops.filter { $0.kind == .change }.allSatisfy { $0.change != nil })
        #expect(PartialFiles.shared.current.allSatisfy { !$0.hasPrefix(path) })
    }

    /// The rare fields live in a box: a copy does not share a later change.
    /// A history line whose clock reading or `now` is beyond what the checks can subtract and
    /// add without overflow is refused with its line (its latency overflowed and trapped).
    @Test(arguments: [
        ("\"time\":", "-9223372036854775808", "time"), ("\"time\":", "9223372036854775807", "time"),
        ("\"now\":", "9223372036854775807", "now"), ("\"now\":", "-9223372036854775808", "now"),
    ])
    func extremeTimesAreRefused(key: String, value: String, named: String) async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 20))
        let path = Fixtures.temporaryPath("extreme.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await Simulator.runThreads(
            p, service: Scheduler(rules: p.rules), threads: 2, options: RunOptions(historyPath: path))
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let first = try #require(lines.first?.range(of: key))
        let number = try #require(lines[0][first.upperBound...].firstIndex { $0 == "," || $0 == "}" })
        lines[0].replaceSubrange(first.upperBound..<number, with: value)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let error = try #require(throws: SimulationIOError.self) { try Simulator.readTimedHistory(path: path, p) }
        #expect(error.problem.hasPrefix("line 1: \(named) \(value)"), "\(error)")
    }

    @Test func timedOperationsAreValues() {
        var a = TimedOperation(process: 0, kind: .reserve, user: 1, requestID: "r", now: 0, invoke: 0, complete: 0)
        let b = a
        a.requestID = "s"
        a.displaced = [3]
        #expect(b.requestID == "r" && b.displaced.isEmpty)
        #expect(a.requestID == "s" && a.displaced == [3])
        a.requestID = nil
        a.displaced = []
        #expect(a.rare.isEmpty)
        #expect(MemoryLayout<TimedOperation>.stride <= 64)
    }

    /// The in-place permutation sort gives the order a plain sort gives.
    @Test(arguments: [0, 1, 2, 7, 1_000] as [Int])
    func sortingByInvokeInPlaceMatchesASort(count: Int) {
        var rng = SplitMix64(seed: UInt64(count))
        var ops = (0..<count).map { i in
            TimedOperation(
                process: Int32(rng.below(4)), kind: .reserve, user: UInt64(i), now: 0, invoke: Int64(rng.below(50)),
                complete: Int64(rng.below(50)))
        }
        let expected = ops.enumerated().sorted {
            ($0.element.invoke, $0.element.process, $0.element.complete, $0.offset)
                < ($1.element.invoke, $1.element.process, $1.element.complete, $1.offset)
        }.map(\.element.user)
        ops.sortByInvoke()
        #expect(ops.map(\.user) == expected)
    }

    /// The final bookings, kept once in id order: found by id whatever order the store answered
    /// in, a repeated id keeps its first booking, and each id is listed once.
    @Test func bookingsAreFoundByIDInAnyOrder() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 300))
        let scheduler = Scheduler(rules: p.rules)
        _ = try await Simulator.runThreads(p, service: scheduler, threads: 1)
        let all = scheduler.allBookings
        try #require(all.count > 3)
        var changed = all[1]
        changed.user = UserID(999_999)
        let byID = BookingsByID(all.reversed() + [changed], p)
        #expect(byID.all.count == all.count + 1)
        #expect(zip(byID.all, byID.all.dropFirst()).allSatisfy { $0.id <= $1.id })
        for booking in all {
            #expect(
                byID[id: booking.id.rawValue]?.user == booking.user
                    && byID[id: booking.id.rawValue]?.slot == booking.slot)
        }
        #expect(byID[id: 0] == nil && byID[id: UInt64.max] == nil)
        #expect(Array(byID.distinct).map(\.id) == all.map(\.id).sorted())
    }
}
