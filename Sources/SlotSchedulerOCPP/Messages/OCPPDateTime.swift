import SlotScheduler

/// An OCPP `dateTime` (RFC 3339): read with any offset and fraction, written in UTC to the second
/// (`2026-11-29T10:00:00Z`). Whole seconds, as `Instant` counts them: a fraction is dropped.
public struct OCPPDateTime: Hashable, Sendable, Codable, CustomStringConvertible {
    public var instant: Instant

    public init(_ instant: Instant) { self.instant = instant }

    /// Reads `2026-11-29T10:00:00Z`, `2026-11-29T11:00:00.123+01:00` and the like.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        guard let year = number(0..<4), byte(4) == 45, let month = number(5..<7), byte(7) == 45,
            let day = number(8..<10), byte(10) == 84 || byte(10) == 116, let hour = number(11..<13), byte(13) == 58,
            let minute = number(14..<16), byte(16) == 58, let second = number(17..<19),
            hour < 24, minute < 60, second < 61,
            let date = try? LocalDate(year: year, month: month, day: day)
        else { return nil }
        var index = 19
        if byte(index) == 46 {
            index += 1
            let digits = index
            while let b = byte(index), (48...57).contains(b) { index += 1 }
            guard index > digits else { return nil }
        }
        var offset = 0
        switch byte(index) {
        case 90, 122:  // Z
            index += 1
        case 43, 45:  // + or -
            guard let hours = number(index + 1..<index + 3), byte(index + 3) == 58,
                let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (byte(index) == 45 ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds =
            Int64(date.dayNumber) * 86_400 + Int64(hour * 3_600 + minute * 60 + min(second, 59)) - Int64(offset)
        self.instant = Instant(secondsSinceEpoch: seconds)
    }

    /// UTC, to the second.
    public var description: String {
        let (quotient, remainder) = instant.secondsSinceEpoch.quotientAndRemainder(dividingBy: 86_400)
        let (days, seconds) = remainder < 0 ? (quotient - 1, remainder + 86_400) : (quotient, remainder)
        let date = LocalDate(dayNumber: Int32(clamping: days))
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        func four(_ value: Int) -> String {
            String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value)
        }
        return "\(four(date.year))-\(two(Int64(date.month)))-\(two(Int64(date.day)))T"
            + "\(two(seconds / 3_600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Self(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.refusal(of: text))
        }
        self = value
    }

    /// Why `text` is not read: a date-time whose year is outside ``LocalDate/supportedYears``
    /// (`9999-12-31T23:59:59Z` is RFC 3339, a year this package does not book) says so.
    static func refusal(of text: String) -> String {
        let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
        let year =
            text.utf8.count >= 20 && text.utf8.dropFirst(4).first == UInt8(ascii: "-") ? Int(text.prefix(4)) : nil
        if let year, !LocalDate.supportedYears.contains(year) {
            return "a date-time outside the years \(LocalDate.supportedYears.lowerBound)..."
                + "\(LocalDate.supportedYears.upperBound): \(shown)"
        }
        return "not an RFC 3339 date-time: \(shown)"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
