/// Reading a ``JSONValue`` straight from bytes (RFC 8259), for a caller that reads many small
/// answers: `JSONDecoder` reaches an object through five failed attempts at other types, each a
/// thrown error. The result is the decoder's: a number whose value is whole and fits `Int64` is an
/// integer (`1.0` and `1e2` too), and a repeated key keeps its first value. It is the stricter
/// of the two, as RFC 8259 is: no comma before `]`, and a repeated key's later value must be JSON
/// too (`JSONParsingProperties` holds them to this). A reader of untrusted messages refuses a
/// repeated key instead (``RepeatedKeys/refuse``): readers differ on which value counts.
extension JSONValue {
    /// What to do with a key an object names twice.
    public enum RepeatedKeys: Sendable {
        /// The first value counts, as `JSONDecoder`'s.
        case keepFirst
        /// The document is refused: another reader on its way may take the last value.
        case refuse
    }

    /// Why bytes are not one JSON value, and the byte offset where reading stopped.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var offset: Int
        public var problem: String

        public var description: String { "byte \(offset): \(problem)" }
    }

    /// The one JSON value of `bytes` (whitespace around it allowed). Nesting deeper than
    /// `maxDepth` is refused, so a hostile document cannot exhaust the stack; strings must be
    /// UTF-8 and their `\u` escapes whole characters.
    /// - Complexity: O(*n*) in the bytes.
    public init(parsing bytes: [UInt8], maxDepth: Int = 512, repeatedKeys: RepeatedKeys = .keepFirst)
        throws(ParseError)
    {
        var reader = JSONReader(bytes: bytes, maxDepth: maxDepth, repeatedKeys: repeatedKeys)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.failure("text after the value") }
        self = value
    }
}

/// A recursive-descent reader over bytes; ``at`` is the next byte to read.
struct JSONReader {
    let bytes: [UInt8]
    let maxDepth: Int
    let repeatedKeys: JSONValue.RepeatedKeys
    var at = 0

    init(bytes: [UInt8], maxDepth: Int, repeatedKeys: JSONValue.RepeatedKeys = .keepFirst) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.repeatedKeys = repeatedKeys
    }

    func failure(_ problem: String) -> JSONValue.ParseError { JSONValue.ParseError(offset: at, problem: problem) }

    var next: UInt8? { at < bytes.count ? bytes[at] : nil }

    mutating func skipSpace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard let byte = next else { throw failure("a value was expected, the text ended") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("a value was expected")
        }
    }

    mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count,
            word.withUTF8Buffer({ bytes[at..<(at + count)].elementsEqual($0) })
        else { throw failure("a value was expected") }
        at += count
        return value
    }

    mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if try opens(closedBy: "}", depth: depth) { return .object(members) }
        while true {
            guard next == UInt8(ascii: "\"") else { throw failure("a member's name was expected") }
            let nameAt = at
            let name = try string()
            if repeatedKeys == .refuse, members[name] != nil {
                let shown = name.count <= 64 ? name : String(name.prefix(63)) + "…"
                throw JSONValue.ParseError(
                    offset: nameAt, problem: "the member \(shown.debugDescription) is named twice")
            }
            skipSpace()
            guard next == UInt8(ascii: ":") else { throw failure("':' was expected") }
            at += 1
            skipSpace()
            let member = try value(depth: depth + 1)
            if members[name] == nil { members[name] = member }
            if try closes("}") { return .object(members) }
        }
    }

    mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        var items: [JSONValue] = []
        if try opens(closedBy: "]", depth: depth) { return .array(items) }
        while true {
            items.append(try value(depth: depth + 1))
            if try closes("]") { return .array(items) }
        }
    }

    /// Past an object's or array's opening byte (within the depth limit): whether `close`
    /// follows at once (it is then read too).
    mutating func opens(closedBy close: Unicode.Scalar, depth: Int) throws(JSONValue.ParseError) -> Bool {
        guard depth < maxDepth else { throw failure("nested deeper than \(maxDepth)") }
        at += 1
        skipSpace()
        guard next == UInt8(ascii: close) else { return false }
        at += 1
        return true
    }

    /// After a member or an item: `,` (read, and the space after it; `false`), or `close`
    /// (read; `true`).
    mutating func closes(_ close: Unicode.Scalar) throws(JSONValue.ParseError) -> Bool {
        skipSpace()
        switch next {
        case UInt8(ascii: ","):
            at += 1
            skipSpace()
            return false
        case UInt8(ascii: close):
            at += 1
            return true
        default: throw failure("',' or '\(close)' was expected")
        }
    }

    /// A string from its opening quote: its escapes read, its bytes checked as UTF-8.
    mutating func string() throws(JSONValue.ParseError) -> String {
        let start = at
        at += 1
        var text: [UInt8] = []
        while true {
            guard let byte = next else { throw failure("the string that begins at byte \(start) does not end") }
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw JSONValue.ParseError(offset: start, problem: "the string is not UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                at += 1
                try escape(into: &text)
            case 0..<0x20: throw failure("a control character in a string")
            default:
                text.append(byte)
                at += 1
            }
        }
    }

    /// The escape after a backslash, appended as UTF-8.
    mutating func escape(into text: inout [UInt8]) throws(JSONValue.ParseError) {
        guard let byte = next else { throw failure("an escape was expected, the text ended") }
        at += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate: its low one must follow, as another \u escape.
                guard next == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a \\u escape")
                }
                at += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let character = Unicode.Scalar(scalar) else { throw failure("a lone surrogate in a \\u escape") }
            text.append(contentsOf: Array(String(Character(character)).utf8))
        default: throw failure("an unknown escape")
        }
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt16 {
        guard at + 4 <= bytes.count else { throw failure("four hexadecimal digits were expected") }
        var value: UInt16 = 0
        for byte in bytes[at..<(at + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("four hexadecimal digits were expected")
            }
            value = value << 4 | UInt16(digit)
        }
        at += 4
        return value
    }

    /// A number: an integer when its value is whole and fits `Int64`, else a `Double`.
    mutating func number() throws(JSONValue.ParseError) -> JSONValue {
        let start = at
        if next == UInt8(ascii: "-") { at += 1 }
        guard let first = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw failure("a digit was expected")
        }
        if first == UInt8(ascii: "0") { at += 1 } else { digits() }
        var whole = true
        if next == UInt8(ascii: ".") {
            whole = false
            at += 1
            guard digits() > 0 else { throw failure("a digit was expected after '.'") }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            whole = false
            at += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw failure("a digit was expected in the exponent") }
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        if whole, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            throw JSONValue.ParseError(offset: start, problem: "a number out of range")
        }
        if double.rounded(.towardZero) == double, let integer = Int64(exactly: double) { return .integer(integer) }
        return .number(double)
    }

    /// Skips digits; how many.
    @discardableResult
    mutating func digits() -> Int {
        let start = at
        while let byte = next, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
        return at - start
    }
}
