import Foundation

/// A self-contained HTML page of a run against a live API (`run --target … --html FILE`): the
/// run's summary, then each finding with the part of the history that shows it, drawn as
/// Jepsen's and Porcupine's timelines are: one lane per worker, each operation a bar from its
/// invocation to its answer, coloured by outcome, and the same events as a table below.
public enum FindingsPage {
    /// Findings drawn at most, in the order given (the summary counts them all).
    public static let maxFindings = 20

    /// The page: `title`, `summary` (the run's text) and `findings`.
    public static func html(title: String, summary: String, findings: [SafetyCheck.Finding]) -> String {
        var page = ""
        if findings.isEmpty {
            page += "<h2 id=\"findings\">No finding</h2><p>Every check held over the whole history.</p>\n"
        } else {
            page += "<h2 id=\"findings\">\(findings.count) finding\(findings.count == 1 ? "" : "s")</h2>\n"
            page += legend()
            for (number, finding) in findings.prefix(maxFindings).enumerated() {
                page += section(finding, number: number + 1)
            }
            if findings.count > maxFindings {
                page += "<p>\(findings.count - maxFindings) more findings are in the summary above.</p>\n"
            }
        }
        return HTMLText.page(
            title: title, summary: summary,
            style: """
                table.events{border-collapse:collapse;font-size:12px;margin-top:8px}
                table.events td,table.events th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left}
                """, body: page)
    }

    /// One operation of a finding: its invocation and its answer (nil: none recorded).
    struct Operation {
        var invoke: TargetEvent
        var answer: TargetEvent?
    }

    static let colors: [(name: String, color: String)] = [
        ("ok: made", "#2e9d4f"), ("fail: refused", "#9a9a9a"), ("fail: retry later", "#e8a33b"),
        ("info: unknown outcome", "#d9482b"),
    ]

    static func color(_ answer: TargetEvent?) -> String {
        switch answer?.kind {
        case .ok: colors[0].color
        case .fail: answer?.reason == TargetEvent.retryLater ? colors[2].color : colors[1].color
        case .info, .invoke, nil: colors[3].color
        }
    }

    static func legend() -> String {
        let items = colors.map { "<span><i class=\"sw\" style=\"background:\($0.color)\"></i>\($0.name)</span>" }
        return "<div class=\"legend\">\(items.joined())</div>\n"
    }

    /// The operations of a finding's events, by invocation time (an answer without its
    /// invocation is drawn from its own time).
    static func operations(_ events: [TargetEvent]) -> [Operation] {
        var byIndex: [Int: Operation] = [:]
        for event in events where event.kind == .invoke { byIndex[event.index] = Operation(invoke: event) }
        for event in events where event.kind != .invoke {
            byIndex[event.index, default: Operation(invoke: event)].answer = event
        }
        return byIndex.values.sorted { ($0.invoke.time, $0.invoke.index) < ($1.invoke.time, $1.invoke.index) }
    }

    static func section(_ finding: SafetyCheck.Finding, number: Int) -> String {
        let operations = operations(finding.events)
        return """
            <h2 id="finding-\(number)">\(number). \(HTMLText.escape(finding.invariant))</h2>
            <p>\(HTMLText.escape(finding.explanation))</p>
            \(timeline(operations))
            \(table(finding.events))

            """
    }

    /// The operations on lanes, one per worker, against time in milliseconds from the first.
    static func timeline(_ operations: [Operation]) -> String {
        guard let start = operations.map(\.invoke.time).min() else { return "" }
        let end = max(operations.map { $0.answer?.time ?? $0.invoke.time }.max() ?? start, start + 1)
        let workers = Array(Set(operations.map(\.invoke.process))).sorted()
        let lane = Dictionary(uniqueKeysWithValues: workers.enumerated().map { ($1, $0) })
        let (left, width, height) = (90.0, 760.0, 26)  // and 220 px beside the last bar for its label
        let scale = width / Double(end - start)
        var svg = ""
        for (k, worker) in workers.enumerated() {
            svg +=
                "<text x=\"0\" y=\"\(k * height + 16)\" font-size=\"11\">\(worker < 0 ? "read back" : "worker \(worker)")</text>"
        }
        for operation in operations {
            let x = left + Double(operation.invoke.time - start) * scale
            let w = max(3, Double((operation.answer?.time ?? end) - operation.invoke.time) * scale)
            let y = (lane[operation.invoke.process] ?? 0) * height + 4
            let answer = operation.answer.map { " → \($0.kind.rawValue)\($0.status.map { " \($0)" } ?? "")" } ?? ""
            let label = "#\(operation.invoke.index) \(operation.invoke.operation) user \(operation.invoke.user)"
            svg +=
                "<rect x=\"\(format(x))\" y=\"\(y)\" width=\"\(format(w))\" height=\"16\" fill=\"\(color(operation.answer))\">"
            svg += "<title>\(HTMLText.escape((operation.answer ?? operation.invoke).line))</title></rect>"
            // Inside a bar wide enough for it, else beside the bar's end, in dark text.
            let inside = w >= Double(label.count + answer.count) * 5.5 + 6
            let (textX, ink) = inside ? (x + 3, "#fff") : (x + w + 3, "#222")
            svg += "<text x=\"\(format(textX))\" y=\"\(y + 12)\" font-size=\"10\" fill=\"\(ink)\">"
            svg += "\(HTMLText.escape(label + answer))</text>"
        }
        let axis = workers.count * height + 14
        svg += "<text x=\"\(Int(left))\" y=\"\(axis)\" font-size=\"11\">0 ms</text>"
        svg += "<text x=\"\(Int(left + width) - 80)\" y=\"\(axis)\" font-size=\"11\">"
        svg += "\(format(Double(end - start) / 1e6)) ms</text>"
        return "<svg width=\"\(Int(left + width) + 220)\" height=\"\(axis + 6)\" role=\"img\">\(svg)</svg>"
    }

    static func table(_ events: [TargetEvent]) -> String {
        guard let start = events.map(\.time).min() else { return "" }
        var rows = "<tr><th>ms</th><th>worker</th><th>event</th><th>operation</th><th>user</th><th>slot</th>"
        rows += "<th>key</th><th>booking</th><th>status</th><th>reason</th></tr>"
        for event in events {
            let cells = [
                format(Double(event.time - start) / 1e6), String(event.process), event.kind.rawValue,
                "#\(event.index) \(event.operation)", String(event.user), event.slot ?? "", event.requestID ?? "",
                event.booking ?? "", event.status.map(String.init) ?? "", event.reason ?? "",
            ]
            rows += "<tr>" + cells.map { "<td>\(HTMLText.escape($0))</td>" }.joined() + "</tr>"
        }
        return "<table class=\"events\">\(rows)</table>"
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
