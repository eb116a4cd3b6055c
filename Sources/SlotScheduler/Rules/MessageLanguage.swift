/// Languages refusals can be described in; the source apps ship English and Turkish.
public enum MessageLanguage: String, Hashable, Codable, Sendable, CaseIterable {
    case english = "en"
    case turkish = "tr"

    /// The language of a BCP 47 tag such as `tr`, `tr-TR`, `en-GB` or `EN_us`: its primary
    /// subtag, compared case-insensitively; `nil` for a language without messages.
    public init?(bcp47 tag: String) {
        let trimmed = tag.utf8.count > 64 ? "" : tag.trimmingSpaces
        let primary = trimmed.split(separator: "-", maxSplits: 1).first?.split(separator: "_").first ?? ""
        guard let language = Self(rawValue: primary.lowercased()) else { return nil }
        self = language
    }

    /// The language an `Accept-Language` header prefers (RFC 9110: `tr-TR, en;q=0.8, *;q=0.1`),
    /// or `fallback` when the header is missing, names no language with messages, or only `*`.
    ///
    /// The highest `q` wins; ties go to the one listed first; `q=0` excludes. Only the first 32
    /// entries of a header of at most 4096 bytes are read, so a huge header costs no more.
    public static func preferred(acceptLanguage header: String?, fallback: MessageLanguage = .english)
        -> MessageLanguage
    {
        guard let header, header.utf8.count <= 4096 else { return fallback }
        var best: (language: MessageLanguage, quality: Double)?
        for entry in header.split(separator: ",").prefix(32) {
            let parts = entry.split(separator: ";")
            guard let tag = parts.first, let language = MessageLanguage(bcp47: String(tag)) else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = String(parameter).trimmingSpaces.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].lowercased() == "q" {
                    quality = Double(String(pair[1]).trimmingSpaces).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
                }
            }
            if quality > 0, quality > best?.quality ?? 0 { best = (language, quality) }
        }
        return best?.language ?? fallback
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\t" }
        var end = scalars.endIndex
        while end > scalars.startIndex, [" ", "\t"].contains(scalars[scalars.index(before: end)]) {
            end = scalars.index(before: end)
        }
        return String(scalars[..<end])
    }
}
