import Foundation
import PropertyBased
import SlotScheduler
import Testing

/// `JSONValue(parsing:)` reads what `JSONDecoder` reads, on documents built from JSON's tokens
/// (with escapes, surrogate pairs, numbers of every form, whitespace and nesting) and on the same
/// documents cut short or with a piece that is not JSON; it never crashes, and refuses nesting
/// deeper than its limit.
@Suite("JSONValue(parsing:) against JSONDecoder")
struct JSONParsingProperties {
    /// Pieces a document is made of: values, structure, and what is not JSON.
    static let pieces: [String] = [
        "{", "}", "[", "]", ",", ":", " ", "\n\t", "\"a\"", "\"a/b\"", #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u6771""#,
        #""\ud83d\ude00""#, #""\ud800""#, #""\udc00x""#, "\"é東😀\"", "0", "-0", "17", "-42", "1.5", "1.0", "1e2",
        "2E-3", "0.1e1", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "01", "1.",
        ".5", "-", "true", "false", "null", "tru", "nul", #""\x""#, #""\u12""#, "\"unterminated", "\u{01}",
        "\"\u{01}\"", "'a'", "NaN",
    ]

    /// A document that is mostly well formed: a value built by a small grammar from a list of
    /// picks, with a stray piece now and then.
    static let documents = Gen.int(in: 0...(2 * pieces.count - 1)).array(of: 0...30).map(document)

    static func document(_ picks: [Int]) -> [UInt8] {
        var picks = picks.makeIterator()
        func value(_ depth: Int) -> String {
            guard let pick = picks.next() else { return "0" }
            if pick >= pieces.count { return pieces[pick - pieces.count] }  // anything, as it comes
            switch pick % 4 {
            case 0 where depth < 4:
                return "[" + (0..<((pick / 4) % 4)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            case 1 where depth < 4:
                return "{"
                    + (0..<((pick / 4) % 4)).map { k in " \"k\(k)\" : " + value(depth + 1) }.joined(separator: ",")
                    + "}"
            default:
                return [
                    pieces[8], pieces[11], pieces[12], pieces[16], pieces[19], pieces[20], pieces[21], pieces[22],
                    pieces[32], pieces[33], pieces[34], pieces[10], pieces[25], pieces[26],
                ][pick % 14]
            }
        }
        return Array(value(0).utf8)
    }

    /// Well-formed documents (no stray piece): both readers read them, to the same value.
    static let wellFormed = Gen.int(in: 0...(pieces.count - 1)).array(of: 0...30).map(document)

    @Test func readsWhatJSONDecoderReads() async {
        await propertyCheck(count: iterations(2000), input: Self.wellFormed) { bytes in
            let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            let parsed = try? JSONValue(parsing: bytes)
            #expect(parsed != nil && parsed == decoded, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// With stray pieces: never a crash, and what it reads, JSONDecoder reads the same. It is the
    /// stricter of the two: JSONDecoder also takes a comma before `]`, which RFC 8259 does not.
    @Test func readsNothingJSONDecoderReadsOtherwise() async {
        await propertyCheck(count: iterations(3000), input: Self.documents) { bytes in
            let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            guard let parsed = try? JSONValue(parsing: bytes) else { return }
            #expect(parsed == decoded, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func aDocumentDeeperThanTheLimitIsRefusedNotACrash() throws {
        let deep = Array(String(repeating: "[", count: 100_000).utf8)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: deep) }
        let nested = Array((String(repeating: "[", count: 40) + String(repeating: "]", count: 40)).utf8)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: nested, maxDepth: 39) }
        #expect(try JSONValue(parsing: nested, maxDepth: 40) != .null)
    }

    @Test func refusalsSayWhereAndWhat() {
        func problem(_ text: String) -> JSONValue.ParseError? {
            do {
                _ = try JSONValue(parsing: Array(text.utf8))
                return nil
            } catch { return error }
        }
        #expect(problem(#"{"a": 1,}"#)?.description == "byte 8: a member's name was expected")
        #expect(problem("[1] x")?.description == "byte 4: text after the value")
        #expect(problem(#""\ud800""#)?.problem == "a lone surrogate in a \\u escape")
        #expect(problem("")?.description == "byte 0: a value was expected, the text ended")
        #expect(problem("[1, 2]") == nil)
        #expect(problem("1e400")?.description == "byte 0: a number out of range")
    }

    /// A repeated key keeps its first value, as JSONDecoder's does; but its later value is read
    /// too, and refused if it is not JSON (JSONDecoder never reads it, so the documents above
    /// repeat no key).
    @Test func aRepeatedKeyKeepsItsFirstValue() throws {
        let first = try JSONValue(parsing: Array(#"{"a": 1, "b": [], "a": 2}"#.utf8))
        #expect(first == .object(["a": .integer(1), "b": .array([])]))
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: Array(#"{"a": 1, "a": 01}"#.utf8)) }
    }

    /// Refusing repeated keys (``JSONValue/RepeatedKeys/refuse``, as OCPP frames are read)
    /// changes nothing else: a document read both ways is the same value, every well-formed one
    /// (its keys distinct) is read, and one is refused only for a repeated key, at any depth.
    @Test func refusingRepeatedKeysRefusesOnlyThem() async {
        await propertyCheck(count: iterations(2000), input: Self.documents) { bytes in
            let lenient = try? JSONValue(parsing: bytes)
            switch Result(catching: { () throws(JSONValue.ParseError) in
                try JSONValue(parsing: bytes, repeatedKeys: .refuse)
            }) {
            case .success(let strict): #expect(strict == lenient)
            case .failure(let error): #expect(lenient == nil || error.problem.hasSuffix("is named twice"), "\(error)")
            }
        }
        await propertyCheck(count: iterations(1000), input: Self.wellFormed) { bytes in
            let document = String(decoding: bytes, as: UTF8.self)
            #expect(throws: Never.self) { try JSONValue(parsing: bytes, repeatedKeys: .refuse) }
            for repeated in [#"{"d": 1, "x": \#(document), "d": 2}"#, #"[\#(document), {"d": {}, "d": {}}]"#] {
                #expect {
                    try JSONValue(parsing: Array(repeated.utf8), repeatedKeys: .refuse)
                } throws: { error in
                    (error as? JSONValue.ParseError)?.problem == #"the member "d" is named twice"#
                }
            }
        }
    }
}
