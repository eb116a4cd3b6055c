import ArgumentParser
import Foundation
import SlotSimulation

/// `run --html FILE`: the page is built from the run's history, so a run without `--history`
/// writes one to a temporary file first and removes it afterwards.
struct HTMLOutput {
    let path: String
    let historyPath: String
    let temporaryHistory: Bool

    init?(html: String?, history: String?) {
        guard let html else { return nil }
        path = html
        temporaryHistory = history == nil
        historyPath =
            history
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "schedule-sim-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)-history.jsonl"
            ).path
    }

    /// Writes the page (exit 73 if it cannot), then removes a temporary history: a file this run
    /// created under a name no other process can have chosen (process id and a UUID).
    func write(_ result: Report, threads: Bool) throws(ExitCode) {
        defer { if temporaryHistory { try? FileManager.default.removeItem(atPath: historyPath) } }
        let page: HTMLReport
        do { page = try HTMLReport(historyPath: historyPath) } catch { throw refuse(error) }
        let title = "schedule-sim: \(result.scenario) (\(result.mode)), \(result.verdict)"
        try writeAtomically(
            Data(page.html(title: title, summary: result.summary, threads: threads).utf8), to: path, as: .page)
    }
}
