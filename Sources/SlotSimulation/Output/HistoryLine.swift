import Foundation
import SlotScheduler

/// One line of a history file (JSON lines, keys sorted so a run and its rerun give the same bytes), written by both modes and read back by
/// `verify-store`: the one type for writer and reader, encoded and decoded by `JSONEncoder` and
/// `JSONDecoder`, so any id (quotes, backslashes, tabs, newlines) gives one valid JSON line.
///
/// A deterministic run writes `seq`, `t`, `op`, `user`, `slot`, `booking`, `result`, `detail`;
/// a threads-mode run writes an `invoke` and a return (`ok`, `fail` or `info`) line per operation
/// with `process`, `type`, `time`, `index`, `now` and, where they apply, `cell`, `repeatOf`,
/// `requestID`, `displaced` and `change` (the availability change asked for, so a checker reading
/// the file knows which hours it set).
public struct HistoryLine: Codable, Hashable, Sendable {
    public var seq: Int?
    public var t: Int64?
    public var process: Int32?
    public var type: String?
    public var time: Int64?
    public var index: Int?
    public var op: String
    public var user: UInt64
    public var now: Int64?
    public var slot: String?
    public var cell: Int32?
    public var repeatOf: UInt64?
    public var requestID: String?
    public var booking: UInt64?
    public var result: String?
    public var displaced: [UInt64]?
    public var detail: String?
    public var change: AvailabilityChange?

    public init(op: String, user: UInt64) {
        self.op = op
        self.user = user
    }

    /// The encoder of every history line: keys sorted, slashes as they are.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The line as JSON text (no newline).
    public var text: String {
        (try? Self.makeEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
