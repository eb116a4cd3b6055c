/// A CSV file: its header and its rows, as RFC 4180 reads them. Quoted fields may hold commas,
/// doubled quotes and line breaks; lines end with LF, CRLF or CR; a UTF-8 byte-order mark is
/// dropped; blank lines are skipped.
struct CSVTable: Sendable {
    /// The first row's fields, trimmed of surrounding spaces.
    var header: [String]
    /// The other rows, each with the line it starts on (the header is line 1).
    var rows: [Row]
    /// Where an opening quote was never closed, if one was not.
    var unterminatedQuoteLine: Int?

    struct Row: Sendable {
        var line: Int
        var fields: [String]
    }

    /// - Complexity: O(n) in the text's length.
    init(bytes: [UInt8]) {
        var parser = Parser()
        var i = ByteOrderMark.length(in: bytes)
        while i < bytes.count {
            let next = i + 1 < bytes.count ? bytes[i + 1] : nil
            i += parser.consume(bytes[i], next: next)
        }
        parser.endRecord()
        header = parser.records.first?.fields.map { $0.trimmingSpaces } ?? []
        rows = Array(parser.records.dropFirst())
        unterminatedQuoteLine = parser.quoted ? parser.recordLine : nil
    }

    /// The indices of the columns named `name`: the exact matches, else those that differ only
    /// in case or surrounding spaces. More than one is ambiguous: which column was meant?
    func columns(_ name: String) -> [Int] {
        let exact = header.indices.filter { header[$0] == name }
        if !exact.isEmpty { return exact }
        let wanted = name.trimmingSpaces.lowercased()
        return header.indices.filter { header[$0].lowercased() == wanted }
    }

    private struct Parser {
        var records: [Row] = []
        var record: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var line = 1
        var recordLine = 1

        /// Reads one byte (and the next, for `""` and CRLF); returns how many it used.
        mutating func consume(_ byte: UInt8, next: UInt8?) -> Int {
            let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
            if quoted {
                if byte == quote {
                    if next == quote {
                        field.append(quote)
                        return 2
                    }
                    quoted = false
                } else {
                    if byte == lf || (byte == cr && next != lf) { line += 1 }
                    field.append(byte)
                }
                return 1
            }
            switch byte {
            case quote: quoted = true
            case comma: endField()
            case cr, lf:
                endRecord()
                line += 1
                recordLine = line
                return byte == cr && next == lf ? 2 : 1
            default: field.append(byte)
            }
            return 1
        }

        mutating func endField() {
            record.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }

        mutating func endRecord() {
            endField()
            let blank = record.count == 1 && record[0].trimmingSpaces.isEmpty
            if !blank { records.append(Row(line: recordLine, fields: record)) }
            record = []
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
