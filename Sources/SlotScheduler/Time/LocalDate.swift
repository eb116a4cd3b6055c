/// A calendar date without a time zone (proleptic Gregorian), such as a station's local date.
///
/// Stored as a day number (days since 1970-01-01) so that comparing and stepping are integer
/// operations; encoded as `"YYYY-MM-DD"`.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    public let dayNumber: Int32

    /// The dates this package accepts: years 1900 through 2399.
    public static let supportedYears = 1900...2399

    /// The dates this package accepts, 1900-01-01 through 2399-12-31: the dates of
    /// ``supportedYears``. A slot or availability change outside them is refused
    /// (``Rejection/Reason/unsupportedDate``), so no input can make a book span more days.
    public static let supportedRange =
        LocalDate(
            dayNumber: dayNumber(year: 1900, month: 1, day: 1))...LocalDate(
            dayNumber: dayNumber(year: 2399, month: 12, day: 31))

    public init(dayNumber: Int32) { self.dayNumber = dayNumber }

    /// Creates a date, refusing ones that do not exist ("2018-02-30") or lie outside ``supportedYears``.
    public init(year: Int, month: Int, day: Int) throws(InvalidValue) {
        guard Self.supportedYears.contains(year) else {
            throw InvalidValue(
                field: "year", value: String(year), expected: "a year in 1900...2399",
                turkish: "1900...2399 arası bir yıl")
        }
        guard (1...12).contains(month) else {
            throw InvalidValue(
                field: "month", value: String(month), expected: "a month 1...12",
                turkish: "1...12 arası bir ay")
        }
        guard (1...Self.daysIn(month: month, year: year)).contains(day) else {
            throw InvalidValue(
                field: "day", value: "\(year)-\(month)-\(day)",
                expected: "a day 1...\(Self.daysIn(month: month, year: year)) of that month",
                turkish: "o ayın 1...\(Self.daysIn(month: month, year: year)) arası bir günü")
        }
        dayNumber = Self.dayNumber(year: year, month: month, day: day)
    }

    /// Parses `"YYYY-MM-DD"`: ASCII digits only, so no sign (`2026-+1-01`) or other digits slip in.
    public init(parsing text: String) throws(InvalidValue) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count == 4, parts[1].utf8.count == 2, parts[2].utf8.count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else {
            throw InvalidValue(
                field: "date", value: text, expected: "a date formatted YYYY-MM-DD",
                turkish: "YYYY-AA-GG biçiminde bir tarih")
        }
        do { try self.init(year: year, month: month, day: day) } catch {
            throw InvalidValue(
                field: "date", value: text, expected: error.expected,
                turkish: error.expectedInTurkish)
        }
    }

    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// The date `days` later (earlier when negative), stopping at the ends of `Int32` day numbers
    /// (before, `days` was truncated to 32 bits: `adding(days: 1 << 32)` was the same date and
    /// `adding(days: -Int.max)` the next day).
    public func adding(days: Int) -> LocalDate {
        let days = min(max(days, -(1 << 33)), 1 << 33)
        return LocalDate(dayNumber: Int32(clamping: Int(dayNumber) + days))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.dayNumber < rhs.dayNumber }

    public var description: String {
        let (y, m, d) = components
        return "\(y)-\(m < 10 ? "0" : "")\(m)-\(d < 10 ? "0" : "")\(d)"
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func dayNumber(year: Int, month: Int, day: Int) -> Int32 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return Int32(era * 146_097 + doe - 719_468)
    }

    var components: (year: Int, month: Int, day: Int) { Self.civil(fromDay: Int64(dayNumber)) }

    /// The proleptic Gregorian (year, month, day) of any day number an `Int64` count of seconds
    /// can reach (|day| < 2^47, so nothing here overflows).
    static func civil(fromDay day: Int64) -> (year: Int, month: Int, day: Int) {
        let z = Int(day) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension LocalDate: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
