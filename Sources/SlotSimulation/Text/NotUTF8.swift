import Foundation

/// Where bytes stop being UTF-8 text, for every reader of text from outside: scenarios, CSVs and
/// the booking service's request bodies. The first NUL byte counts as such (no UTF-8 text holds
/// one, while UTF-16 and UTF-32 text holds many: `JSONDecoder` reads those and the checks before
/// it could not), and so does the first byte that is not UTF-8 (read as UTF-8 anyway, a Latin-1
/// `é` became `\u{FFFD}`, so two names could be one).
public struct NotUTF8: Sendable, Equatable, CustomStringConvertible {
    /// The NUL byte, or the first byte of what is not UTF-8.
    public let byte: UInt8
    /// Its offset from the start of the text.
    public let offset: Int
    /// Its line, from 1: lines end at LF, CR LF or a lone CR, as the CSV reader reads them.
    public let line: Int

    /// The first such byte of `data`; nil when `data` is UTF-8 text without a NUL.
    /// - Complexity: O(n) in the bytes of `data`, no copy: one pass over the bytes, and for the
    /// byte found a second over the bytes before it, for its line.
    public init?(_ data: Data) {
        guard let offset = data.withUnsafeBytes({ Self.firstOffset(in: $0) }) else { return nil }
        let line = data.withUnsafeBytes { Self.line(at: offset, in: $0) }
        (self.byte, self.offset, self.line) = (data[data.startIndex + offset], offset, line)
    }

    /// The offset of the first NUL byte, or of the first byte of the first sequence that is not
    /// well-formed UTF-8 (the Unicode Standard's table 3-7: no overlong forms, no surrogates,
    /// nothing above U+10FFFF; a cut-short sequence is named by its lead byte).
    ///
    /// A loop of its own, not `Unicode.UTF8.ForwardParser`, which builds each scalar: a
    /// `schedule-sim check` of 54 MB of Cyrillic names took about 2.1 s with the parser and takes
    /// about 0.4 s with this loop, as long as the same file in ASCII (Scenarios README, "Parsing").
    static func firstOffset(in bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            if lead < 0x80 {
                if lead == 0 { return i }
                i &+= 1
                continue
            }
            // The sequence's length, and the range its second byte must be in.
            let (length, low, high): (Int, UInt8, UInt8)
            switch lead {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xE1...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            default: return i
            }
            guard length <= bytes.count &- i, (low...high).contains(bytes[i &+ 1]) else { return i }
            // At most two more continuation bytes: the length is at most 4.
            for k in 2..<length where bytes[i &+ k] & 0xC0 != 0x80 { return i }
            i &+= length
        }
        return nil
    }

    /// The line of `offset`, from 1: lines end at LF, CR LF or a lone CR.
    private static func line(at offset: Int, in bytes: UnsafeRawBufferPointer) -> Int {
        var (line, afterCR) = (1, false)
        for byte in bytes[..<offset] {
            if byte == UInt8(ascii: "\r") || (byte == UInt8(ascii: "\n") && !afterCR) { line += 1 }
            afterCR = byte == UInt8(ascii: "\r")
        }
        return line
    }

    public var description: String {
        if byte == 0 { return "a NUL byte on line \(line) (offset \(offset)), as in UTF-16 or UTF-32 text" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true)) on line \(line) (offset \(offset)) is not UTF-8"
    }
}
