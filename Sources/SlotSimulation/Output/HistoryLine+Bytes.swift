import Foundation

extension HistoryLine {
    /// Appends the line's JSON (no newline) to `bytes`: the same bytes `encoder` gives (keys
    /// sorted, slashes as they are), written directly for the common case, which is about twenty
    /// times faster than `JSONEncoder` and runs once per history line in every worker.
    ///
    /// A line with a string holding anything but printable ASCII other than `"` and `\`, or with
    /// an availability change, is left to `encoder` whole, so escaping has one definition.
    /// `HistoryLineBytesTests` checks the two agree.
    func appendJSON(to bytes: inout [UInt8], encoder: JSONEncoder) {
        guard change == nil, [type, op, slot, requestID, result, detail].allSatisfy({ $0.map(Self.isPlain) ?? true })
        else {
            // Encoding a struct of strings and integers cannot fail; an empty object marks it if it did.
            bytes.append(contentsOf: (try? encoder.encode(self)) ?? Data("{}".utf8))
            return
        }
        var first = true
        func key(_ name: StaticString) {
            bytes.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            bytes.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func number(_ name: StaticString, _ value: (some BinaryInteger)?) {
            guard let value else { return }
            key(name)
            bytes.append(contentsOf: String(value).utf8)
        }
        func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: value.utf8)
            bytes.append(UInt8(ascii: "\""))
        }
        // In the order of `.sortedKeys`.
        number("booking", booking)
        number("cell", cell)
        string("detail", detail)
        if let displaced {
            key("displaced")
            bytes.append(UInt8(ascii: "["))
            for (i, id) in displaced.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: String(id).utf8)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        number("index", index)
        number("now", now)
        string("op", op)
        number("process", process)
        number("repeatOf", repeatOf)
        string("requestID", requestID)
        string("result", result)
        number("seq", seq)
        string("slot", slot)
        number("t", t)
        number("time", time)
        string("type", type)
        number("user", user)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Printable ASCII without `"` and `\`: written as it is by any JSON encoder.
    static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}

extension HistoryLine {
    /// Reads a line as ``appendJSON(to:encoder:)`` writes it directly (no spaces, integers,
    /// printable-ASCII strings without escapes, each known key at most once), about twenty times
    /// faster than `JSONDecoder`; `nil` for anything else (an escape, an availability change,
    /// `null`, a number out of range, a malformed line), which the caller hands to `JSONDecoder`,
    /// so every line means what `JSONDecoder` says it means. `HistoryLineBytesTests` checks the two
    /// agree.
    static func parsePlain(_ bytes: UnsafeRawBufferPointer) -> HistoryLine? {
        var reader = PlainReader(bytes: bytes)
        return reader.line()
    }

    private struct PlainReader {
        let bytes: UnsafeRawBufferPointer
        var i = 0

        mutating func take(_ byte: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        /// A string of printable ASCII without `"` or `\`.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = i
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") {
                    i += 1
                    return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i - 1]), as: UTF8.self)
                }
                guard b >= 0x20, b < 0x7F, b != UInt8(ascii: "\\") else { return nil }
                i += 1
            }
            return nil
        }

        /// An integer as JSON writes one (no leading zeros, no fraction or exponent), in range.
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            let negative = take(UInt8(ascii: "-"))
            if negative && !T.isSigned { return nil }
            let start = i
            var value: T = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) {
                let digit = T(bytes[i] - 0x30)
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) =
                    negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !o1, !o2 else { return nil }
                value = next
                i += 1
            }
            let digits = i - start
            guard digits > 0, digits == 1 || bytes[start] != 0x30 else { return nil }
            // A fraction or an exponent is left to the decoder.
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") || bytes[i] | 0x20 == UInt8(ascii: "e") { return nil }
            return value
        }

        mutating func key() -> String? {
            guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
            return key
        }

        mutating func line() -> HistoryLine? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var line = HistoryLine(op: "", user: 0)
            var seen: Set<String> = []
            var op: String?
            var user: UInt64?
            func assign<T>(_ field: WritableKeyPath<HistoryLine, T?>, _ value: T?) -> Bool {
                line[keyPath: field] = value
                return value != nil
            }
            if !take(UInt8(ascii: "}")) {
                repeat {
                    guard let key = key(), seen.insert(key).inserted else { return nil }
                    let ok: Bool
                    switch key {
                    case "booking": ok = assign(\.booking, integer(UInt64.self))
                    case "cell": ok = assign(\.cell, integer(Int32.self))
                    case "detail": ok = assign(\.detail, string())
                    case "index": ok = assign(\.index, integer(Int.self))
                    case "now": ok = assign(\.now, integer(Int64.self))
                    case "op":
                        op = string()
                        ok = op != nil
                    case "process": ok = assign(\.process, integer(Int32.self))
                    case "repeatOf": ok = assign(\.repeatOf, integer(UInt64.self))
                    case "requestID": ok = assign(\.requestID, string())
                    case "result": ok = assign(\.result, string())
                    case "seq": ok = assign(\.seq, integer(Int.self))
                    case "slot": ok = assign(\.slot, string())
                    case "t": ok = assign(\.t, integer(Int64.self))
                    case "time": ok = assign(\.time, integer(Int64.self))
                    case "type": ok = assign(\.type, string())
                    case "user":
                        user = integer(UInt64.self)
                        ok = user != nil
                    case "displaced":
                        guard take(UInt8(ascii: "[")) else { return nil }
                        var ids: [UInt64] = []
                        if !take(UInt8(ascii: "]")) {
                            repeat {
                                guard let id = integer(UInt64.self) else { return nil }
                                ids.append(id)
                            } while take(UInt8(ascii: ","))
                            guard take(UInt8(ascii: "]")) else { return nil }
                        }
                        line.displaced = ids
                        ok = true
                    default: ok = false
                    }
                    guard ok else { return nil }
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "}")) else { return nil }
            }
            guard i == bytes.count, let op, let user else { return nil }
            line.op = op
            line.user = user
            return line
        }
    }
}
