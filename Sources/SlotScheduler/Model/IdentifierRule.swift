/// The one rule every stored text identifier follows: station ids, socket ids and request ids.
///
/// A valid identifier
/// - is 1 to ``maxUTF8Bytes`` (128) bytes long in UTF-8,
/// - has no whitespace at its start or end (`" IST-1 "` is refused; `"IST 1"` is fine),
/// - contains no control character (Unicode category Cc: NUL, tabs, line feeds, DEL, C1 controls).
///
/// Two identifiers are the same only when they are spelled with the same Unicode scalars (the
/// same UTF-8 bytes), as PostgreSQL compares text: `"é"` (U+00E9, NFC) and `"e\u{301}"` (e and a
/// combining acute, NFD) are two different station, socket or request ids, although Swift's
/// `String ==` calls them equal. ``StationID``, ``SocketID`` and ``RequestID`` compare, hash and
/// order by ``same(_:_:)``, so the core, the simulator and the PostgreSQL store agree: an NFD
/// reference never names an NFC station, and an NFD request id never repeats an NFC one.
/// Clients should send ids in NFC, as they were given.
///
/// ``Catalog`` refuses stations and sockets that break it, ``Ledger`` and ``Scheduler`` refuse a
/// reservation whose request id breaks it (``Rejection/Reason/invalidRequestID``) before storing
/// anything, the simulator's scenario validation refuses such ids, and the PostgreSQL store checks
/// them before any SQL. The bound keeps what one request can make the service remember small.
public enum IdentifierRule {
    /// The longest identifier, in UTF-8 bytes.
    public static let maxUTF8Bytes = 128

    /// Why `text` is not a valid identifier, as the `expected` of an ``InvalidValue``, or `nil`
    /// when it is valid.
    ///
    /// - Complexity: O(min(*n*, ``maxUTF8Bytes``)): a longer text is refused by its length alone.
    public static func problem(in text: String) -> String? { problems(in: text)?.english }

    /// ``problem(in:)`` in English and in Turkish.
    static func problems(in text: String) -> (english: String, turkish: String)? {
        let bytes = text.utf8.count
        guard bytes > 0 else { return ("a non-empty identifier", "boş olmayan bir kimlik") }
        guard bytes <= maxUTF8Bytes else {
            return (
                "an identifier of at most \(maxUTF8Bytes) UTF-8 bytes",
                "en çok \(maxUTF8Bytes) UTF-8 baytlık bir kimlik"
            )
        }
        let scalars = text.unicodeScalars
        if let first = scalars.first, first.properties.isWhitespace {
            return ("an identifier without leading whitespace", "başında boşluk olmayan bir kimlik")
        }
        if let last = scalars.last, last.properties.isWhitespace {
            return ("an identifier without trailing whitespace", "sonunda boşluk olmayan bir kimlik")
        }
        if scalars.contains(where: { $0.properties.generalCategory == .control }) {
            return ("an identifier without control characters", "denetim karakteri içermeyen bir kimlik")
        }
        return nil
    }

    /// Whether `a` and `b` are the same identifier: the same UTF-8 bytes, not merely canonically
    /// equivalent.
    @inlinable
    public static func same(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        guard a.utf8.count == b.utf8.count else { return false }
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    /// Hashes `text` by its UTF-8 bytes, consistently with ``same(_:_:)``.
    @inlinable
    public static func hash(_ text: String, into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }

    /// Orders identifiers by their UTF-8 bytes (for NFC text, the order of `String <`).
    @inlinable
    public static func precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.lexicographicallyPrecedes(y) } }
    }

    /// Whether `text` is a valid identifier.
    public static func isValid(_ text: String) -> Bool { problems(in: text) == nil }

    /// Throws an ``InvalidValue`` naming `field` when `text` is not a valid identifier. The
    /// value it carries is cut to ``maxUTF8Bytes`` bytes, so the error stays small too.
    public static func validate(_ text: String, field: String) throws(InvalidValue) {
        if let (english, turkish) = problems(in: text) {
            throw InvalidValue(field: field, value: shortened(text), expected: english, turkish: turkish)
        }
    }

    /// `text` cut to at most ``maxUTF8Bytes`` UTF-8 bytes (on a character boundary) with `…` and
    /// the full length appended when it was longer: for echoing input in errors and messages.
    public static func shortened(_ text: String) -> String {
        let bytes = text.utf8.count
        guard bytes > maxUTF8Bytes else { return text }
        var kept = ""
        for character in text {
            if kept.utf8.count + character.utf8.count > maxUTF8Bytes { break }
            kept.append(character)
        }
        return "\(kept)… (\(bytes) bytes)"
    }
}
