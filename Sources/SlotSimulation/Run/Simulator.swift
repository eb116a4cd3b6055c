import Foundation
import SlotScheduler

/// Runs scenarios. See ``runDeterministic(_:options:)`` and
/// ``runThreads(_:service:threads:options:linearizabilityBudget:)``.
public enum Simulator {
    /// Runs a scenario on one thread against a `Ledger`, every choice from the scenario's seed.
    /// The report and history are byte-identical for the same scenario and seed.
    public static func runDeterministic(_ p: PreparedScenario, options: RunOptions = RunOptions())
        throws(SimulationIOError) -> Report
    {
        let history = try options.historyPath.map { path throws(SimulationIOError) in try HistoryWriter(path: path) }
        var run = DeterministicRun(p, options: options, history: history)
        run.execute()
        do { try history?.finish() } catch {
            history?.discard()
            throw error
        }
        return run.report()
    }

    /// Runs `p` twice more with `first`'s options (a history in a temporary folder) and tells
    /// whether both reports equal `first` and the two histories are byte-identical.
    public static func checkDeterminism(_ p: PreparedScenario, first: Report, options: RunOptions)
        throws(SimulationIOError) -> (same: Bool, historyBytes: Int)
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "schedule-sim-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var reports: [Data] = []
        var histories: [Data] = []
        for run in 0..<2 {
            var rerun = options
            rerun.historyPath = directory.appendingPathComponent("history-\(run).jsonl").path
            rerun.progress = false
            let report = try runDeterministic(p, options: rerun)
            reports.append(report.json())
            histories.append(FileManager.default.contents(atPath: rerun.historyPath ?? "") ?? Data())
        }
        let same = reports[0] == reports[1] && histories[0] == histories[1] && reports[0] == first.json()
        return (same, histories[0].count)
    }
}

struct Progress {
    let enabled: Bool
    let total: Int
    let began = ContinuousClock.now
    var shown = false
    var last = ContinuousClock.now

    init(enabled: Bool, total: Int) {
        self.enabled = enabled
        self.total = total
    }

    mutating func tick(_ done: Int) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - began > .seconds(2), now - last > .milliseconds(500) else { return }
        last = now
        shown = true
        let seconds = Double((now - began).components.seconds) + Double((now - began).components.attoseconds) * 1e-18
        let pct = total > 0 ? Double(done) * 100 / Double(total) : 100
        let rate = Double(done) / seconds
        let left = rate > 0 ? Double(total - done) / rate : 0
        let line = String(
            format: "\r  %d/%d operations (%.0f%%), %.0f ops/s, %.0f s left   ", done, total, pct, rate, left)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func end() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
