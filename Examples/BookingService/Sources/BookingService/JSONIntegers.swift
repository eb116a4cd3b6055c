import Foundation

/// Whether the integer fields of a JSON object are written as whole numbers.
///
/// `JSONDecoder` reads a number with a fraction or an exponent through a `Double`, so a value
/// that is not an integer but rounds to one is read as that integer: `"hour": 1e-400` as hour 0,
/// `"user": 17.000000000000001` as user 17. This reads the literals themselves. Any JSON
/// spelling of a whole number (`7`, `7.0`, `7e0`, `0.7e1`, `-0.0`) is whole, as JSON Schema's
/// `integer` counts it; the range is the decoder's to check.
enum JSONIntegers {
    /// The first literal (in the text) of a top-level `fields` member of the object `data` that is
    /// a number but not a whole one, with its field; nil when there is none. `data` is JSON the
    /// decoder has accepted.
    ///
    /// - Complexity: O(n) in the bytes of `data`.
    static func inexact(in data: Data, fields: Set<String>) -> (field: String, literal: String)? {
        let bytes = [UInt8](data)
        var index = 0
        var depth = 0
        var topIsObject = false
        var expectKey = false
        var key: String?
        var valueOf: String?
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let end = stringEnd(bytes, from: index)
                if depth == 1, topIsObject, expectKey {
                    key = decodedString(bytes[index..<end])
                    expectKey = false
                } else if depth == 1 {
                    valueOf = nil
                }
                index = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth == 1 {
                    topIsObject = byte == UInt8(ascii: "{")
                    expectKey = topIsObject
                }
                valueOf = nil
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 1 { expectKey = topIsObject }
            case UInt8(ascii: ":"):
                if depth == 1 { valueOf = key }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                if depth == 1, let field = valueOf, fields.contains(field), !isWhole(bytes[index..<end]) {
                    return (field, String(decoding: bytes[index..<end], as: UTF8.self))
                }
                valueOf = nil
                index = end
                continue
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index after the closing quote of the string that opens at `start`; `bytes.count` when
    /// the string is not closed (an escape's backslash may be the last byte: `{"\\`).
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// A key as the decoder reads it (escapes resolved); nil if it cannot be read.
    static func decodedString(_ quoted: ArraySlice<UInt8>) -> String? {
        guard quoted.contains(UInt8(ascii: "\\")) else {
            return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self)
        }
        return try? JSONDecoder().decode(String.self, from: Data(quoted))
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// Whether the JSON number `literal` (`-?digits(.digits)?([eE][+-]?digits)?`) is a whole number:
    /// no non-zero digit after the decimal point once the exponent has moved it.
    static func isWhole(_ literal: ArraySlice<UInt8>) -> Bool {
        let mantissa = literal.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        let unsigned = mantissa.drop { $0 == UInt8(ascii: "-") }
        let integer = unsigned.prefix { $0 != UInt8(ascii: ".") }
        let fraction = unsigned.dropFirst(integer.count + 1)
        let digits = Array(integer) + Array(fraction)
        guard let lastNonZero = digits.lastIndex(where: { $0 != UInt8(ascii: "0") }) else { return true }
        // The exponent, saturated: a body has at most 16 KiB of digits, far fewer than the bound.
        let bound = 1_000_000
        var exponent = 0
        var sign = 1
        for byte in literal.dropFirst(mantissa.count + 1) {
            switch byte {
            case UInt8(ascii: "-"): sign = -1
            case UInt8(ascii: "0")...UInt8(ascii: "9"): exponent = min(bound, exponent * 10 + Int(byte - 48))
            default: break
            }
        }
        return lastNonZero < integer.count + sign * exponent
    }
}
