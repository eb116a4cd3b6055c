/// A moment in time: whole seconds since 1970-01-01T00:00:00Z.
///
/// The scheduler never reads the clock; every operation takes `now` as an `Instant`.
public struct Instant: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var secondsSinceEpoch: Int64
    public init(secondsSinceEpoch: Int64) { self.secondsSinceEpoch = secondsSinceEpoch }
    init(_ seconds: Int64) { self.secondsSinceEpoch = seconds }
    public init(from decoder: any Decoder) throws {
        secondsSinceEpoch = try decoder.singleValueContainer().decode(Int64.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSinceEpoch)
    }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }
    public static func + (lhs: Self, rhs: Duration) -> Self {
        Instant(secondsSinceEpoch: lhs.secondsSinceEpoch &+ rhs.components.seconds)
    }
    public static func - (lhs: Self, rhs: Duration) -> Self {
        Instant(secondsSinceEpoch: lhs.secondsSinceEpoch &- rhs.components.seconds)
    }
    /// The UTC instant of a UTC wall-clock time; convenient in tests and scenarios.
    public static func utc(_ date: LocalDate, hour: Int, minute: Int = 0, second: Int = 0) -> Instant {
        Instant(
            secondsSinceEpoch: Int64(date.dayNumber) * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60
                + Int64(second))
    }
    /// ISO 8601 in UTC, e.g. `2018-03-25T01:00:00Z`.
    public var description: String {
        let day = Int32((secondsSinceEpoch >= 0 ? secondsSinceEpoch : secondsSinceEpoch - 86_399) / 86_400)
        let rest = secondsSinceEpoch - Int64(day) * 86_400
        let date = LocalDate(dayNumber: day)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(date)T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }
}
