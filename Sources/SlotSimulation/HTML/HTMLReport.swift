import Foundation

/// A self-contained HTML page of a run, built from its history (JSON lines): the contended slots
/// as a heat map (socket × hour, one table per date), accepted and refused over the run by
/// reason, and in threads mode the invocations of the most contended slot on a timeline, one
/// lane per overlapping call, as Porcupine draws a history.
public struct HTMLReport {
    /// One reserve (or retry) of the history: its slot, outcome, and invoke/complete times.
    struct Call {
        var index: Int
        var slot: String
        var result: String
        var user: UInt64
        var invoked: Int64
        var completed: Int64
    }

    /// The history lines' fields the page uses.
    struct Line: Decodable {
        /// Threads mode numbers operations `index`, deterministic mode `seq`.
        var index: Int?
        var seq: Int?
        var op: String?
        var slot: String?
        var type: String?
        var result: String?
        var time: Int64?
        var user: UInt64?
    }

    var calls: [Call] = []
    /// Sockets and dates shown at most, the most contended first.
    static let maxSockets = 40
    static let maxDates = 14
    static let maxTimelineCalls = 40
    static let buckets = 48

    /// Reads the history at `path`.
    /// - Complexity: O(n log n) in the history's lines.
    public init(historyPath path: String) throws(SimulationIOError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SimulationIOError(path: path, problem: "cannot read the history")
        }
        let decoder = JSONDecoder()
        var open: [Int: Call] = [:]
        for (n, line) in data.split(separator: 10).enumerated() {
            guard let l = try? decoder.decode(Line.self, from: line) else {
                throw SimulationIOError(path: path, problem: "line \(n + 1): not a history line")
            }
            guard l.op == "reserve" || l.op == "retry", let slot = l.slot, let index = l.index ?? l.seq
            else { continue }
            if l.type == "invoke" {
                open[index] = Call(
                    index: index, slot: slot, result: "", user: l.user ?? 0, invoked: l.time ?? 0, completed: 0)
            } else if var call = open.removeValue(forKey: index) {
                call.result = l.result ?? "?"
                call.completed = l.time ?? call.invoked
                calls.append(call)
            } else {
                // Deterministic mode writes one line per operation, without invoke.
                calls.append(
                    Call(
                        index: index, slot: slot, result: l.result ?? "?", user: l.user ?? 0, invoked: l.time ?? 0,
                        completed: l.time ?? 0))
            }
        }
        calls.sort { $0.index < $1.index }
    }

    /// The page: `title` and `summary` (the report's text) on top.
    public func html(title: String, summary: String, threads: Bool) -> String {
        let page = heatMap() + outcomesOverTime() + (threads ? timeline() : "")
        return HTMLText.page(
            title: title, summary: summary,
            style: """
                table.heat{border-collapse:collapse;margin:6px 0 14px}
                table.heat td,table.heat th{width:22px;height:16px;font-size:10px;text-align:center;padding:0}
                table.heat th.s{width:auto;text-align:right;padding-right:6px;font-weight:normal;white-space:nowrap}
                """, body: page)
    }

    /// "station/socket 2018-06-07 18:00" → ("station/socket", "2018-06-07", 18).
    static func parse(_ slot: String) -> (socket: String, date: String, hour: Int)? {
        let parts = slot.split(separator: " ")
        guard parts.count == 3, let hour = Int(parts[2].prefix(2)) else { return nil }
        return (String(parts[0]), String(parts[1]), hour)
    }

    func heatMap() -> String {
        var attempts: [String: [String: [Int]]] = [:]  // date → socket → 24 counts
        var accepted: [String: [String: [Int]]] = [:]
        for call in calls {
            guard let (socket, date, hour) = Self.parse(call.slot), (0...23).contains(hour) else { continue }
            attempts[date, default: [:]][socket, default: Array(repeating: 0, count: 24)][hour] += 1
            if call.result == "accepted" {
                accepted[date, default: [:]][socket, default: Array(repeating: 0, count: 24)][hour] += 1
            }
        }
        let peak = attempts.values.flatMap { $0.values.flatMap { $0 } }.max() ?? 0
        var out = "<h2 id=\"heatmap\">Contended slots: reservation attempts per socket and hour</h2>\n"
        out += "<p>Darker is more attempts (log scale, peak \(peak)); hover a cell for attempts and accepted.</p>\n"
        for date in attempts.keys.sorted().prefix(Self.maxDates) {
            guard let sockets = attempts[date] else { continue }
            let ranked = sockets.keys.sorted {
                (sockets[$0]?.reduce(0, +) ?? 0, $1) > (sockets[$1]?.reduce(0, +) ?? 0, $0)
            }
            out += "<h3>\(escape(date))</h3><table class=\"heat\"><tr><th class=\"s\">socket \\ hour</th>"
            out += (0..<24).map { "<th>\($0)</th>" }.joined() + "</tr>\n"
            for socket in ranked.prefix(Self.maxSockets) {
                let row = sockets[socket] ?? []
                let ok = accepted[date]?[socket] ?? Array(repeating: 0, count: 24)
                out += "<tr><th class=\"s\">\(escape(socket))</th>"
                for hour in 0..<24 {
                    let n = row[hour]
                    let level = n == 0 || peak <= 1 ? 0 : log(Double(n) + 1) / log(Double(peak) + 1)
                    let color = n == 0 ? "#fafafa" : "hsl(10,85%,\(Int(95 - 60 * level))%)"
                    out += "<td style=\"background:\(color)\" title=\"\(n) attempts, \(ok[hour]) accepted\"></td>"
                }
                out += "</tr>\n"
            }
            out += "</table>\n"
        }
        return out
    }

    func outcomesOverTime() -> String {
        guard !calls.isEmpty else { return "" }
        let outcomes = ["accepted"] + Set(calls.map(\.result)).subtracting(["accepted"]).sorted()
        let colors = ["#2e9d4f", "#d9482b", "#e8a33b", "#7b5cc4", "#3b8bd9", "#999999", "#c44d9b", "#5cb8b2"]
        var counts = Array(repeating: [Int](repeating: 0, count: outcomes.count), count: Self.buckets)
        let position = Dictionary(uniqueKeysWithValues: outcomes.enumerated().map { ($1, $0) })
        for (i, call) in calls.enumerated() {
            counts[i * Self.buckets / calls.count][position[call.result] ?? 0] += 1
        }
        let highest = max(1, counts.map { $0.reduce(0, +) }.max() ?? 1)
        let (width, height, bar) = (960, 240, 960 / Self.buckets)
        var svg = "<svg width=\"\(width)\" height=\"\(height + 20)\" role=\"img\">"
        for (b, bucket) in counts.enumerated() {
            var y = height
            for (k, n) in bucket.enumerated() where n > 0 {
                let h = n * height / highest
                y -= h
                svg +=
                    "<rect x=\"\(b * bar)\" y=\"\(y)\" width=\"\(bar - 1)\" height=\"\(h)\" fill=\"\(colors[k % colors.count])\"><title>\(escape(outcomes[k])): \(n)</title></rect>"
            }
        }
        svg += "<text x=\"0\" y=\"\(height + 15)\" font-size=\"11\">first operation</text>"
        svg += "<text x=\"\(width - 90)\" y=\"\(height + 15)\" font-size=\"11\">last operation</text></svg>"
        let legend = outcomes.enumerated().map { k, name in
            "<span><i class=\"sw\" style=\"background:\(colors[k % colors.count])\"></i>\(escape(name))</span>"
        }
        return """
            <h2 id="outcomes">Accepted and refused over the run, by reason</h2>
            <p>\(calls.count) reservations in \(Self.buckets) equal slices of the run, in operation order.</p>
            <div class="legend">\(legend.joined())</div>
            \(svg)

            """
    }

    /// The most contended slot's calls as bars from invoke to completion, one lane per overlap.
    func timeline() -> String {
        var bySlot: [String: Int] = [:]
        for call in calls { bySlot[call.slot, default: 0] += 1 }
        guard let slot = bySlot.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key else { return "" }
        let all = calls.filter { $0.slot == slot }.sorted { ($0.invoked, $0.index) < ($1.invoked, $1.index) }
        let chosen = Array(Self.densest(all, count: Self.maxTimelineCalls))
        guard let start = chosen.first?.invoked, let end = chosen.map(\.completed).max(), end > start else { return "" }
        var laneEnds: [Int64] = []
        var bars = ""
        let (width, lane) = (960.0, 14)
        let scale = width / Double(end - start)
        for call in chosen {
            let k = laneEnds.firstIndex { $0 <= call.invoked } ?? laneEnds.count
            if k == laneEnds.count { laneEnds.append(call.completed) } else { laneEnds[k] = call.completed }
            let x = Double(call.invoked - start) * scale
            let w = max(2, Double(call.completed - call.invoked) * scale)
            let color = call.result == "accepted" ? "#2e9d4f" : "#d9482b"
            bars +=
                "<rect x=\"\(String(format: "%.1f", x))\" y=\"\(k * lane)\" width=\"\(String(format: "%.1f", w))\" height=\"\(lane - 3)\" fill=\"\(color)\"><title>operation \(call.index), user \(call.user): \(escape(call.result)), \(call.completed - call.invoked) ns</title></rect>"
        }
        return """
            <h2 id="timeline">Timeline of the most contended slot: \(escape(slot))</h2>
            <p>Each bar is one call, from invoke to completion: the \(chosen.count) consecutive calls of \
            \(bySlot[slot] ?? 0) packed into the least time (\(end - start) ns). Calls that overlap in time \
            sit on separate lanes. Green accepted, red refused; a cancel in between frees the slot again.</p>
            <svg width="\(Int(width))" height="\(laneEnds.count * lane + 4)" role="img">\(bars)</svg>

            """
    }

    /// The `count` consecutive calls (by invoke time) that span the least time: the busiest moment.
    /// - Complexity: O(n × count).
    static func densest(_ calls: [Call], count: Int) -> ArraySlice<Call> {
        guard calls.count > count else { return calls[...] }
        var best = 0
        var bestSpan = Int64.max
        for start in 0...(calls.count - count) {
            let window = calls[start..<(start + count)]
            let span = (window.map(\.completed).max() ?? 0) - window[start].invoked
            if span < bestSpan {
                bestSpan = span
                best = start
            }
        }
        return calls[best..<(best + count)]
    }

    func escape(_ text: String) -> String { HTMLText.escape(text) }
}
