import Foundation
import Testing

@testable import SlotSimulation

/// `schedule-sim run --html`: the page is built from the run's history. (Its rendering in
/// Chromium is checked by Scripts/html-report-check.sh, in CI.)
@Suite struct HTMLReportTests {
    @Test func heatMapCountsEveryReservationOfTheHistory() throws {
        let path = Fixtures.temporaryPath("html-history.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let report = try Simulator.runDeterministic(
            Fixtures.prepared(Fixtures.small()), options: RunOptions(historyPath: path))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let reserves = lines.filter { $0.contains("\"op\":\"reserve\"") || $0.contains("\"op\":\"retry\"") }.count
        let page = try HTMLReport(historyPath: path)
        #expect(page.calls.count == reserves)
        let html = page.html(title: "t", summary: report.summary, threads: false)
        // Every reservation is in exactly one heat-map cell.
        let counted = html.components(separatedBy: "title=\"").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        let accepted = page.calls.filter { $0.result == "accepted" }.count
        #expect(counted.reduce(0, +) == reserves)
        #expect(reserves > 0 && accepted > 0 && accepted < reserves)
        #expect(html.contains("id=\"outcomes\"") && !html.contains("id=\"timeline\""))
        #expect(html == page.html(title: "t", summary: report.summary, threads: false))
    }
}
