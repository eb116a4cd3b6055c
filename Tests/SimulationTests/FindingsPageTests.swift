import Foundation
import Testing

@testable import SlotSimulation

/// `run --target … --html`: each finding's history drawn on one lane per worker.
@Suite("A finding's page")
struct FindingsPageTests {
    /// Two workers booking one slot at once, both answered as made, then an unknown answer on a
    /// third: a double booking, whose evidence is the two reservations.
    static func doubleBooking() -> [SafetyCheck.Finding] {
        let slot = "S/A/2026-12-01/9"
        let history =
            TargetCheckTests.reserve(0, user: 1, slot: slot, key: "k0", booking: "b1", .ok, at: 1_000_000)
            + TargetCheckTests.reserve(1, user: 2, slot: slot, key: "<k1>", booking: "b2", .ok, at: 2_000_000)
            + TargetCheckTests.reserve(2, user: 3, slot: slot, key: "k2", booking: nil, .info, at: 3_000_000)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: slot, live: true),
            ListedBooking(id: "b2", user: 2, slot: slot, live: true),
        ]
        return SafetyCheck.check(history: history, listed: listed, limit: nil)
    }

    @Test func eachFindingHasItsSectionWithABarPerOperation() throws {
        let findings = Self.doubleBooking()
        try #require(findings.map(\.invariant) == ["no double booking"])
        let page = FindingsPage.html(title: "run", summary: "verdict: FAIL", findings: findings)
        let section = try #require(page.components(separatedBy: "id=\"finding-1\"").last)
        #expect(section.contains("no double booking"))
        // Two reservations, each a bar on its own worker's lane, green (answered as made).
        #expect(section.components(separatedBy: "<rect").count - 1 == 2)
        #expect(section.components(separatedBy: "fill=\"#2e9d4f\"").count - 1 == 2)
        #expect(section.contains(">worker 0<") && section.contains(">worker 1<"))
        // Each event as a table row, relative to the first: the second reservation 1 ms later.
        #expect(section.contains("<td>1.0</td>"))
        #expect(!page.contains("id=\"finding-2\""))
    }

    @Test func textFromTheAPIIsEscaped() {
        let page = FindingsPage.html(title: "a <b>", summary: "x & y", findings: Self.doubleBooking())
        #expect(page.contains("&lt;k1&gt;") && !page.contains("<k1>"))
        #expect(page.contains("a &lt;b&gt;") && page.contains("x &amp; y"))
    }

    @Test func aRunWithoutFindingsSaysSo() {
        let page = FindingsPage.html(title: "run", summary: "verdict: PASS", findings: [])
        #expect(page.contains("No finding"))
        #expect(!page.contains("<rect"))
    }

    @Test func anUnknownAnswerIsDrawnApartFromARefusal() {
        let invoke = TargetEvent(index: 7, process: 2, kind: .invoke, operation: "reserve", user: 9, time: 0)
        var refused = invoke
        refused.kind = .fail
        refused.time = 10
        var unknown = refused
        unknown.kind = .info
        var later = refused
        later.reason = TargetEvent.retryLater
        let colors = [refused, unknown, later].map { FindingsPage.color($0) }
        #expect(Set(colors).count == 3)
        #expect(FindingsPage.color(nil) == FindingsPage.color(unknown), "no answer is an unknown outcome")
    }
}
