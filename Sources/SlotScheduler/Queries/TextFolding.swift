import Foundation

/// Case-, accent- and Turkish-insensitive text comparison for search.
///
/// "can" finds "Çankırı", "istanbul" finds "İstanbul", "IZMIR" finds "İzmir": letters are
/// decomposed, combining marks dropped, lowercased, and the dotless ı mapped to i. Independent of
/// the process locale, so results are the same everywhere.
public enum TextFolding {
    /// The folded form of `text`.
    public static func fold(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: break
            }
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                switch lower {
                case "ı": scalars.append("i")
                case "ß": scalars.append(contentsOf: "ss".unicodeScalars)
                default:
                    if lower.properties.generalCategory != .nonspacingMark { scalars.append(lower) }
                }
            }
        }
        return String(scalars)
    }

    /// Whether folded `text` contains folded `query`.
    public static func matches(_ text: String, query: String) -> Bool {
        let q = fold(query)
        return q.isEmpty || fold(text).contains(q)
    }
}
