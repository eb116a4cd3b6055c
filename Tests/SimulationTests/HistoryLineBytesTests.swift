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

    /// The direct reader gives what `JSONDecoder` gives, or hands the line over (`nil`): for
    /// every line the writer makes, and for lines cut short or bent out of the writer's shape.
    @Test func directReadingEqualsTheDecoders() throws {
        let encoder = HistoryLine.makeEncoder()
        var read = 0
        var variants: [Data] = [
            Data(#"{"op":"reserve","user":1,"user":2}"#.utf8), Data(#"{"op":"reserve","user":-1}"#.utf8),
            Data(#"{"op":"reserve","user":01}"#.utf8), Data(#"{"op":"reserve","user":1.0}"#.utf8),
            Data(#"{"op":"reserve","user":18446744073709551616}"#.utf8),
            Data(#"{"cell":2147483648,"op":"r","user":1}"#.utf8),
            Data(#"{"op":"reserve"}"#.utf8), Data(#"{"op":"reserve","user":1} "#.utf8),
            Data(#"{ "op":"r","user":1}"#.utf8),
            Data(#"{"op":"r","user":1,"slot":null}"#.utf8), Data(#"{"op":"r","user":1,"extra":1}"#.utf8),
            Data(#"{"displaced":[1,2,],"op":"r","user":1}"#.utf8), Data(#"{"displaced":[],"op":"r","user":1}"#.utf8),
            Data(#"{"op":"r","user":1,"cell":-5}"#.utf8), Data(#"{}"#.utf8), Data(#"{"op":"r\u0041","user":1}"#.utf8),
        ]
        for seed in 0..<2_000 as Range<UInt64> {
            var line = try line(seed)
            variants.append(try encoder.encode(line))
            // The same line with the writer's plain strings, as most history lines are.
            line.op = "reserve"
            line.type = line.type.map { _ in "invoke" }
            line.slot = line.slot.map { _ in "st-1/2 2018-06-07 08:00" }
            line.requestID = line.requestID.map { _ in "w0-1-seed7" }
            line.result = line.result.map { _ in "slotTaken" }
            line.detail = line.detail.map { _ in "s1/* 2018-06-07: closed" }
            line.change = nil
            let data = try encoder.encode(line)
            variants.append(data)
            variants.append(data.prefix(data.count / 2))
        }
        for data in variants {
            let decoded = try? JSONDecoder().decode(HistoryLine.self, from: data)
            guard let plain = data.withUnsafeBytes({ HistoryLine.parsePlain($0) }) else { continue }
            read += 1
            #expect(plain == decoded, "\(String(decoding: data, as: UTF8.self))")
        }
        #expect(read > 100, "\(read)")
    }
}
