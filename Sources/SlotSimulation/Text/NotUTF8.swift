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
    /// Its line, from 1: lines end at LF, CR LF or a lone CR, as ``CSVTable`` reads them.
    public let line: Int

    /// The first such byte of `data`; nil when `data` is UTF-8 text without a NUL.
    /// - Complexity: O(n) in the bytes of `data`, no copy: a pass that ends the check for ASCII
    /// text without a NUL, else a pass of the UTF-8 parser.
    public init?(_ data: Data) {
        if data.withUnsafeBytes({ $0.allSatisfy { $0 != 0 && $0 < 0x80 } }) { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var (offset, line, afterCR) = (0, 1, false)
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .emptyInput:
                return nil
            case .error:
                (self.byte, self.offset, self.line) = (data[data.startIndex + offset], offset, line)
                return
            case .valid(let scalar):
                let ascii = scalar.count == 1 ? scalar.first : nil
                if ascii == 0 {
                    (self.byte, self.offset, self.line) = (0, offset, line)
                    return
                }
                if ascii == UInt8(ascii: "\r") || (ascii == UInt8(ascii: "\n") && !afterCR) { line += 1 }
                afterCR = ascii == UInt8(ascii: "\r")
                offset += scalar.count
            }
        }
    }

    public var description: String {
        if byte == 0 { return "a NUL byte on line \(line) (offset \(offset)), as in UTF-16 or UTF-32 text" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true)) on line \(line) (offset \(offset)) is not UTF-8"
    }
}
