import Foundation
import SlotSimulation

/// What `JSONDecoder` lets through and RFC 8259 does not, refused before a body is decoded, so
/// the service reads a body as any other JSON reader on its way (a gateway, a validator) does:
///
/// - a body that is not UTF-8 (``NotUTF8``): the decoder also reads UTF-16 and UTF-32, and
///   skipped the whole-number check there;
/// - a comma before `}` or `]`;
/// - a key given twice in one object: the decoder keeps the first value, most readers the last,
///   so a gateway and the service would disagree on who is booking.
enum JSONSyntax {
    /// The first such problem in `data`, as a 400; nil when there is none (other malformed JSON
    /// is the decoder's to report).
    /// - Complexity: O(n) in the bytes of `data`; memory the keys of the open objects.
    static func problem(in data: Data) -> APIError? {
        if NotUTF8(data) != nil {
            return .malformed("The body must be JSON in UTF-8.", "Gövde UTF-8 kodlu JSON olmalı.")
        }
        let bytes = [UInt8](data)
        // The keys of each open object; nil for an open array.
        var open: [Set<String>?] = []
        var expectKey = false
        var previous: UInt8 = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let end = JSONIntegers.stringEnd(bytes, from: index)
                if expectKey, case .some(.some(var keys)) = open.last {
                    let key = JSONIntegers.decodedString(bytes[index..<end]) ?? ""
                    guard keys.insert(key).inserted else {
                        return .malformed(
                            "Field \(key.debugDescription) is given twice.",
                            "\(key.debugDescription) alanı iki kez verilmiş.")
                    }
                    open[open.count - 1] = keys
                    expectKey = false
                }
                previous = byte
                index = end
                continue
            case UInt8(ascii: "{"):
                open.append([])
                expectKey = true
            case UInt8(ascii: "["):
                open.append(nil)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if previous == UInt8(ascii: ",") {
                    return .malformed(
                        "The body is not valid JSON: a comma before \(Character(Unicode.Scalar(byte))).",
                        "Gövde geçerli JSON değil: \(Character(Unicode.Scalar(byte))) öncesinde virgül var.")
                }
                _ = open.popLast()
                expectKey = false
            case UInt8(ascii: ","):
                if case .some(.some) = open.last { expectKey = true }
            default:
                break
            }
            if byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 { previous = byte }
            index += 1
        }
        return nil
    }
}
