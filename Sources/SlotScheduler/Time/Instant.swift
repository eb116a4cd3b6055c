/// A moment in time: whole seconds since 1970-01-01T00:00:00Z.
///
/// The scheduler never reads the clock; every operation takes `now` as an `Instant`.
public struct Instant: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var secondsSinceEpoch: Int64
    public init(secondsSinceEpoch: Int64) { self.secondsSinceEpoch = secondsSinceEpoch }
    init(_ seconds: Int64) { self.secondsSinceEpoch = seconds }
    /// Decodes ISO 8601 in UTC, `"2018-03-25T01:00:00Z"` (the wire format, see
    /// <doc:WireFormat>), or whole seconds since the epoch (journals and snapshots written before
    /// version 1 of the wire format).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Int64.self) {
            secondsSinceEpoch = seconds
            return
        }
        let text = try container.decode(String.self)
        guard let instant = Instant(iso8601: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\(IdentifierRule.shortened(text).debugDescription) is not an instant; "
                        + "expected ISO 8601 in UTC such as 2018-03-25T01:00:00Z"))
        }
        self = instant
    }
    /// Encodes ISO 8601 in UTC, ``description``; an instant beyond the years 0001–9999 ISO 8601
    /// can write (only a `now` far outside ``supportedRange`` is one) as whole seconds, which the
    /// decoder reads back.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if Self.iso8601Range.contains(self) {
            try container.encode(description)
        } else {
            try container.encode(secondsSinceEpoch)
        }
    }

    /// The instants ISO 8601 writes with a four-digit year: 0001-01-01T00:00:00Z through
    /// 9999-12-31T23:59:59Z.
    public static let iso8601Range =
        Instant(
            Int64(LocalDate.dayNumber(year: 1, month: 1, day: 1)) * 86_400)...Instant(
            Int64(LocalDate.dayNumber(year: 10_000, month: 1, day: 1)) * 86_400 - 1)

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (UTC, years 0001–9999 as RFC 3339 writes them: every
    /// instant ``description`` writes in four digits, so ``supportedRange`` and its margins
    /// too), or `nil`.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        let template = Array("0000-00-00T00:00:00Z".utf8)
        guard bytes.count == template.count,
            zip(bytes, template).allSatisfy({ $1 == UInt8(ascii: "0") ? (48...57).contains($0) : $0 == $1 })
        else { return nil }
        func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - 48) } }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        let (h, m, s) = (number(11..<13), number(14..<16), number(17..<19))
        guard year >= 1, (1...12).contains(month), (1...LocalDate.daysIn(month: month, year: year)).contains(day),
            h < 24, m < 60, s < 60
        else { return nil }
        let days = Int64(LocalDate.dayNumber(year: year, month: month, day: day))
        self.init(days * 86_400 + Int64(h * 3_600 + m * 60 + s))
    }

    /// The instants of ``LocalDate/supportedRange`` with a day's margin each side for time zones.
    public static let supportedRange =
        Instant(
            Int64(LocalDate.supportedRange.lowerBound.dayNumber - 1) * 86_400)...Instant(
            Int64(LocalDate.supportedRange.upperBound.dayNumber + 2) * 86_400)
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }
    public static func + (lhs: Self, rhs: Duration) -> Self {
        Instant(secondsSinceEpoch: lhs.secondsSinceEpoch &+ rhs.components.seconds)
    }
    public static func - (lhs: Self, rhs: Duration) -> Self {
        Instant(secondsSinceEpoch: lhs.secondsSinceEpoch &- rhs.components.seconds)
    }
    /// The UTC instant of a UTC wall-clock time; convenient in tests and scenarios.
    ///
    /// Hours, minutes and seconds out of their usual ranges carry over (hour 24 is the next day);
    /// a sum beyond the range of `Int64` saturates at `Int64.min` or `Int64.max`.
    public static func utc(_ date: LocalDate, hour: Int, minute: Int = 0, second: Int = 0) -> Instant {
        var seconds = Int64(date.dayNumber) * 86_400
        for (count, unit) in [(hour, 3_600), (minute, 60), (second, 1)] as [(Int, Int64)] {
            let (product, overflow) = Int64(count).multipliedReportingOverflow(by: unit)
            seconds = seconds.saturatingAdding(overflow ? (count < 0 ? .min : .max) : product)
        }
        return Instant(secondsSinceEpoch: seconds)
    }
    /// ISO 8601 in UTC, e.g. `2018-03-25T01:00:00Z`, the year in four digits from 0001 to 9999
    /// (what ``init(iso8601:)`` reads). Defined for every `Int64`: years beyond those are written
    /// as they are.
    public var description: String {
        let (day, rest) = Self.floorDivide(secondsSinceEpoch, 86_400)
        let (year, month, dayOfMonth) = LocalDate.civil(fromDay: day)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let padding = (1...999).contains(year) ? String(repeating: "0", count: 4 - String(year).count) : ""
        let date = "\(padding)\(year)-\(two(Int64(month)))-\(two(Int64(dayOfMonth)))"
        return "\(date)T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    /// `value` divided by `divisor` (positive) rounded down, and the non-negative remainder.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (q, r) = value.quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}

extension Int64 {
    /// `self + other`, clamped to `Int64.min...Int64.max` instead of trapping.
    func saturatingAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, clamped to `Int64.min...Int64.max` instead of trapping.
    func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}
