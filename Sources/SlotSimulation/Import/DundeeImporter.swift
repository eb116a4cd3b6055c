import Foundation
import SlotScheduler

/// Dundee City Council's charging sessions: the preset ``SessionLayout/dundee`` of
/// ``SessionImporter``, and the scenario encoding the importers write.
///
/// Contains public sector information licensed under the Open Government Licence v3.0.
public enum DundeeImporter {
    public static let attribution =
        "Contains public sector information licensed under the Open Government Licence v3.0. Source: Dundee City Council charging-session open data (6 June to 6 September 2018), via the Open Data Scotland catalogue."

    /// Reads Dundee's CSV at `path` and builds the scenario: ``SessionImporter`` with the
    /// ``SessionLayout/dundee`` layout.
    public static func makeScenario(csvPath path: String, leadHours: Int = 3) throws(ImportError) -> Scenario {
        var layout = SessionLayout.dundee
        layout.leadHours = leadHours
        return try SessionImporter.makeScenario(csvPath: path, layout: layout)
    }

    /// Encodes a scenario as JSON with sorted keys, one scripted step per line (keeps big replays diffable).
    public static func encode(_ scenario: Scenario) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var head = scenario
        head.steps = nil
        guard var text = (try? encoder.encode(head)).flatMap({ String(data: $0, encoding: .utf8) }) else {
            return Data()
        }
        let compact = JSONEncoder()
        compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let steps = (scenario.steps ?? []).compactMap {
            (try? compact.encode($0)).flatMap { String(data: $0, encoding: .utf8) }
        }
        if !steps.isEmpty, let close = text.lastIndex(of: "}") {
            text = String(text[..<close]).trimmingCharacters(in: .whitespacesAndNewlines)
            text += ",\n  \"steps\" : [\n    " + steps.joined(separator: ",\n    ") + "\n  ]\n}"
        }
        return Data((text + "\n").utf8)
    }
}
