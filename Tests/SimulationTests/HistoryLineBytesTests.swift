import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// The history writer's direct encoding gives the bytes `JSONEncoder` gives, for every field and
/// for strings that need escaping (which it leaves to the encoder).
@Suite struct HistoryLineBytesTests {
    static let texts = [
        "plain", "", "st-1/2 2018-06-07 08:00", "quote\"d", "back\\slash", "tab\there", "new\nline", "é",
        "e\u{301}", "slash/ok", "\u{7F}", "\u{2028}", "emoji 🔌", "ctl\u{1}",
    ]

    func line(_ seed: UInt64) throws -> HistoryLine {
        var rng = SplitMix64(seed: seed)
        func maybe<T>(_ value: T) -> T? { rng.below(3) == 0 ? nil : value }
        func text() -> String { Self.texts[rng.below(Self.texts.count)] }
        var line = HistoryLine(op: text(), user: rng.next())
        line.seq = maybe(rng.below(1_000_000))
        line.t = maybe(Int64(bitPattern: rng.next()))
        line.process = maybe(Int32(truncatingIfNeeded: rng.next()))
        line.type = maybe(text())
        line.time = maybe(Int64(bitPattern: rng.next()))
        line.index = maybe(rng.below(1 << 40))
        line.now = maybe(Int64(bitPattern: rng.next()))
        line.slot = maybe(text())
        line.cell = maybe(Int32(truncatingIfNeeded: rng.next()))
        line.repeatOf = maybe(rng.next())
        line.requestID = maybe(text())
        line.booking = maybe(rng.next())
        line.result = maybe(text())
        line.displaced = maybe((0..<rng.below(4)).map { _ in rng.next() })
        line.detail = maybe(text())
        if rng.below(10) == 0 {
            line.change = .close(
                StationID("s\(rng.below(9))"), socket: nil, on: try LocalDate(year: 2018, month: 6, day: 7))
        }
        return line
    }

    @Test func directBytesEqualTheEncoders() throws {
        let encoder = HistoryLine.makeEncoder()
        var direct = 0
        for seed in 0..<3_000 as Range<UInt64> {
            let line = try line(seed)
            var bytes: [UInt8] = []
            line.appendJSON(to: &bytes, encoder: encoder)
            let expected = try encoder.encode(line)
            #expect(Data(bytes) == expected, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            #expect(try JSONDecoder().decode(HistoryLine.self, from: Data(bytes)) == line)
            if line.change == nil,
                [line.type, line.op, line.slot, line.requestID, line.result, line.detail]
                    .allSatisfy({ $0.map(HistoryLine.isPlain) ?? true })
            {
                direct += 1
            }
        }
        // Both paths were taken.
        #expect(direct > 10 && direct < 2_990, "\(direct)")
    }
}
