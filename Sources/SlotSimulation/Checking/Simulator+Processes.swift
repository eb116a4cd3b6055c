import Foundation
import SlotScheduler

extension Simulator {
    /// Checks the histories of several processes that drove one shared store (each written by a
    /// threads-mode run with ``RunOptions/process``), together with the store's final state:
    /// I1-I6, I9, I12 and linearizability (I11) per slot and per user across every process.
    ///
    /// Times must come from one clock: the processes ran on one machine with more than one
    /// process (``RunOptions/ProcessPart/count`` > 1), which records the machine's monotonic clock.
    public static func verifyProcesses(
        _ p: PreparedScenario, historyPaths: [String], finalBookings: [Booking], options: RunOptions = RunOptions(),
        linearizabilityBudget: Int = 2_000_000
    ) throws(SimulationIOError) -> Report {
        let finalBookings = BookingsByID(finalBookings, p)
        let history = try readTimedHistory(paths: historyPaths, p)
        let workers = Set(history.lazy.filter { $0.process >= 0 }.map(\.process)).count
        let first = history.lazy.map(\.invoke).min() ?? 0
        let last = history.lazy.map(\.complete).max() ?? 0
        var analysis = ThreadsAnalysis(p: p, history: history, finalBookings: finalBookings, options: options)
        analysis.run(budget: linearizabilityBudget)
        var report = analysis.report(threads: workers, elapsed: Double(last - first) / 1e9, operations: p.operations)
        report.mode = "processes"
        report.finish(expectations: p.scenario.expectations)
        return report
    }

    /// Reads a threads-mode history back into operations, in invoke order, streaming: the file
    /// is read in pieces and only operations still in flight are held apart. What the checks do
    /// not read (a first request's id, a query's answer) is not kept. An invoke without
    /// its return (the process was killed while it was in flight) is indeterminate: it may have
    /// happened or not. A last line cut short by the kill is ignored.
    /// - Complexity: O(n log n) in the history's lines; memory about 28 bytes per operation
    ///   (``CompactHistory``).
    static func readTimedHistory(path: String, _ p: PreparedScenario) throws(SimulationIOError) -> CompactHistory {
        try readTimedHistory(paths: [path], p)
    }

    /// Reads several histories (of processes that shared one store and one clock) into one, in
    /// invoke order; ties keep the order of the files, then of each file's returns.
    static func readTimedHistory(paths: [String], _ p: PreparedScenario) throws(SimulationIOError) -> CompactHistory {
        var done = CompactHistory(firstUser: p.firstUser)
        // Every operation has an invoke line and, unless a kill cut it off, a return line.
        done.reserveCapacity(paths.reduce(0) { $0 + LineReader.countLines(path: $1) / 2 } + 1024)
        for path in paths { try readTimedHistory(path: path, p, into: &done) }
        done.sortByInvoke()
        return done
    }

    /// The largest clock reading (ns) a history line may carry: about 146 years.
    static let historyClockBound: Int64 = 1 << 62

    static func readTimedHistory(
        path: String, _ p: PreparedScenario, into done: inout CompactHistory
    ) throws(SimulationIOError) {
        let decoder = JSONDecoder()
        var open: [Int: TimedOperation] = [:]
        var end: Int64?
        try LineReader.forEachLine(path: path) {
            (line: Data, lineNumber: Int, cutShort: Bool) throws(SimulationIOError) in
            func bad(_ why: String) -> SimulationIOError {
                SimulationIOError(path: path, problem: "line \(lineNumber): \(why)")
            }
            let entry: HistoryLine
            if let plain = line.withUnsafeBytes({ HistoryLine.parsePlain($0) }) {
                entry = plain
            } else {
                do { entry = try decoder.decode(HistoryLine.self, from: line) } catch {
                    if cutShort { return }
                    throw bad("not a threads-mode history line")
                }
            }
            if let cell = entry.cell, !(0..<Int32(clamping: p.cellCount)).contains(cell) {
                throw bad("cell \(cell) is not in this scenario (was the history written for another one?)")
            }
            guard let type = entry.type, let process = entry.process, let time = entry.time,
                let index = entry.index, let now = entry.now
            else { throw bad("not a threads-mode history line (it needs process, type, time, index and now)") }
            // Within these, every difference and sum the checks take stays within Int64.
            guard (-Self.historyClockBound...Self.historyClockBound).contains(time) else {
                throw bad("time \(time) is beyond ±2^62 ns of the clock's origin")
            }
            guard Instant.supportedRange.contains(Instant(secondsSinceEpoch: now)) else {
                throw bad("now \(now) is outside the supported dates (years 1900-2399)")
            }
            if type == "invoke" {
                guard let kind = TimedOperation.Kind(historyName: entry.op) else {
                    throw bad("unknown operation \(entry.op)")
                }
                if kind == .reserve && entry.cell == nil { throw bad("a reservation without its cell") }
                var op = TimedOperation(
                    process: process, kind: kind, user: entry.user, cell: entry.cell ?? -1,
                    // The checks name a request id only for a repeat (I12): a first request's id is
                    // not kept, so most operations need no box for their rare fields.
                    booking: entry.booking ?? 0, repeatOf: entry.repeatOf ?? 0,
                    requestID: entry.repeatOf == nil ? nil : entry.requestID,
                    now: now, invoke: time, complete: time)
                op.change = entry.change
                if kind == .anySocket {
                    op.requestedCell = op.cell
                    op.minimumPowerKW = entry.detail.flatMap { Double($0.dropFirst("minimumPowerKW ".count)) } ?? 0
                }
                if kind == .checkIn, let detail = entry.detail, detail.hasPrefix("accessCode ") {
                    op.accessCode = String(detail.dropFirst("accessCode ".count))
                }
                if kind == .checkOut, let detail = entry.detail { op.leftAt = Coordinate(leftAtDetail: detail) }
                if open.updateValue(op, forKey: index) != nil { throw bad("operation \(index) invoked twice") }
                return
            }
            guard var op = open.removeValue(forKey: index) else { throw bad("a return without its invoke") }
            op.complete = time
            if let booking = entry.booking { op.booking = booking }
            // The socket an any-socket request was given.
            if op.kind == .anySocket, type == "ok" { op.cell = entry.cell ?? -1 }
            op.displaced = entry.displaced ?? []
            // A query's answer is not checked; a change's description names it in messages.
            if op.kind == .change { op.detail = entry.detail }
            switch (type, entry.result) {
            case ("ok", _): op.outcome = -1
            case ("info", _): op.outcome = -2
            case ("fail", let name?):
                guard let reason = Rejection.Reason(rawValue: name) else { throw bad("unknown refusal \(name)") }
                op.outcome = Reasons.code(reason)
            default: throw bad("unknown event \(type)")
            }
            end = max(end ?? op.complete, op.complete)
            done.append(op)
        }
        for index in open.keys.sorted() {
            guard var op = open[index] else { continue }
            op.outcome = -2
            op.complete = max(end ?? 0, op.invoke)
            done.append(op)
        }
    }
}
