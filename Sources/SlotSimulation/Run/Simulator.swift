import Foundation
import SlotScheduler

/// Runs scenarios. See ``runDeterministic(_:options:)`` and ``runThreads(_:service:threads:options:)``.
public enum Simulator {
    /// Runs a scenario on one thread against a ``Ledger``, every choice from the scenario's seed.
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
        let line = String(
            format: "\r  %d/%d operations (%.0f%%), %.0f ops/s   ", done, total, pct, Double(done) / seconds)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func end() {
        if shown { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
