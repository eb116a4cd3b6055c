import Foundation
import PropertyBased
import SlotSimulation
import Testing

/// ``NotUTF8`` finds what the standard library's UTF-8 parser finds, on texts built from valid
/// scalars, line ends, NULs and every kind of malformed sequence.
@Suite("NotUTF8 against the standard library's parser")
struct NotUTF8Properties {
    /// Pieces a text is made of: valid scalars of each length, line ends, a byte order mark (the
    /// first eight), then a NUL and what is not UTF-8 (overlong forms, surrogates, beyond U+10FFFF, lone continuation bytes,
    /// sequences cut short, bytes that never occur).
    static let pieces: [[UInt8]] = [
        [0x61], [0x0A], [0x0D], [0x0D, 0x0A], Array("é".utf8), Array("東".utf8), Array("😀".utf8),
        [0xEF, 0xBB, 0xBF], [0x00], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
        [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xBF],
        [0xFF], [0xC3], [0xE6, 0x9D], [0xF0, 0x9F, 0x98], Array("\u{10FFFF}".utf8), Array("\u{E000}".utf8),
        Array("\u{D7FF}".utf8),
    ]

    /// Mostly valid text: a pick of 0 mod 4 takes any piece (`pick / 4`), the others one of the
    /// first eight, which are valid and hold no NUL.
    static let texts = Gen.int(in: 0...(4 * pieces.count - 1)).array(of: 0...24).map { picks in
        picks.flatMap { $0 % 4 == 0 ? pieces[$0 / 4] : pieces[($0 / 4) % 8] }
    }

    /// The first NUL or malformed sequence as `Unicode.UTF8.ForwardParser` finds it: byte,
    /// offset and line.
    static func reference(_ bytes: [UInt8]) -> [Int]? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var (offset, line, afterCR) = (0, 1, false)
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .emptyInput:
                return nil
            case .error:
                return [Int(bytes[offset]), offset, line]
            case .valid(let scalar):
                let ascii = scalar.count == 1 ? scalar.first : nil
                if ascii == 0 { return [0, offset, line] }
                if ascii == 0x0D || (ascii == 0x0A && !afterCR) { line += 1 }
                afterCR = ascii == 0x0D
                offset += scalar.count
            }
        }
    }

    @Test func findsWhatTheParserFinds() async {
        await propertyCheck(count: iterations(2000), input: Self.texts) { bytes in
            let found = NotUTF8(Data(bytes)).map { [Int($0.byte), $0.offset, $0.line] }
            #expect(found == Self.reference(bytes), "\(bytes)")
            if !bytes.contains(0) {
                #expect((found == nil) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
            }
        }
    }
}
