import Foundation

/// What an output file holds. ``OutputFile`` replaces a file already at an output's path only
/// when it is empty or when it is recognized as this kind, written by schedule-sim: a file the
/// simulator did not write (a scenario written by hand, notes, anything else) is never replaced.
public enum OutputKind: String, Sendable, Hashable {
    /// JSON lines: a run's history (``HistoryLine``), a catalog change's, or a target run's record.
    case history
    /// A run's report (``Report``), JSON.
    case report
    /// An HTML page: a run drawn, or a target run's findings.
    case page
    /// A scenario that `import` or `run --shrink` wrote: it carries a ``Provenance``.
    case scenario

    /// The mark every page carries in its head (see `HTMLText.page`).
    static let pageMark = #"<meta name="generator" content="schedule-sim">"#

    /// How much of an existing file is read to recognize it: a history's first line, a page's
    /// head, or a whole report or scenario (a larger one is not recognized).
    var bytesRead: Int {
        switch self {
        case .history: 1 << 20
        case .page: 4096
        case .report: 64 << 20
        // No larger scenario is written (`import` refuses one), nor read (``Scenario/load(path:)``).
        case .scenario: ScenarioLimits.maxFileBytes
        }
    }

    /// Whether `bytes`, the first ``bytesRead`` bytes of a file (`whole`: all of it), are empty or
    /// what schedule-sim writes as this kind.
    func recognizes(_ bytes: Data, whole: Bool) -> Bool {
        if bytes.isEmpty && whole { return true }
        let decoder = JSONDecoder()
        switch self {
        case .history:
            let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
            guard let head = try? decoder.decode(HistoryHead.self, from: Data(line)) else { return false }
            return head.kind == "run" || (head.op != nil && head.user != nil)
        case .page:
            return String(decoding: bytes, as: UTF8.self).contains(Self.pageMark)
        case .report:
            return whole && (try? decoder.decode(Report.self, from: bytes)) != nil
        case .scenario:
            return whole && (try? decoder.decode(Scenario.self, from: bytes))?.provenance != nil
        }
    }

    /// The first line of a history (``HistoryLine``: `op` and `user`) or of a target run's record
    /// (`kind` "run").
    private struct HistoryHead: Decodable {
        var kind: String?
        var op: String?
        var user: UInt64?
    }
}
