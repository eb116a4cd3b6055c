import Foundation
import SlotScheduler

/// A wall-clock date and time as a session CSV writes it, with the UTC offset the time named
/// (a trailing `Z` or `±hh:mm`), if any.
struct LocalDateTime: Hashable, Sendable {
    var date: LocalDate
    var hour: Int
    var minute: Int
    /// Seconds east of UTC, when the text said: then the time is the wall clock of that offset,
    /// not necessarily of the station's zone.
    var offset: Int64? = nil

    /// Seconds since 1970-01-01T00:00 on the wall clock.
    var wallSeconds: Int64 { Int64(date.dayNumber) * 86_400 + Int64(hour * 3_600 + minute * 60) }
}

/// Reading the dates, times, durations and zone labels of a session CSV.
enum SessionTime {
    /// "7/29/2011 20:17" → ("7/29/2011", "20:17"); "2018-06-06T08:05" → ("2018-06-06", "08:05").
    static func split(_ text: String) -> (date: Substring, time: Substring?) {
        let trimmed = Substring(text.trimmingSpaces)
        if let t = trimmed.firstIndex(where: { $0 == "T" || $0 == " " }) {
            return (trimmed[..<t], trimmed[trimmed.index(after: t)...])
        }
        return (trimmed, nil)
    }

    /// The three numbers of a date written with one of `/`, `-` or `.` between them (1 to 4
    /// ASCII digits each, no sign), and whether the first has 4 digits: `2018--06--06` and
    /// `-1/-1/-2018` are no dates.
    static func numbers(_ date: Substring) -> (parts: [Int], yearFirst: Bool)? {
        guard let separator = date.first(where: { $0 == "/" || $0 == "-" || $0 == "." }) else { return nil }
        let parts = date.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ (1...4).contains($0.count) }) else { return nil }
        let numbers = parts.compactMap(number)
        return numbers.count == 3 ? (numbers, parts[0].count == 4) : nil
    }

    /// The order the dates use, judged from all of them: a 4-digit first number means
    /// year-month-day; a first number above 12 means day first, a second above 12 month first.
    /// Nil when the values cannot tell (or contradict each other).
    static func inferOrder(_ dates: [Substring]) -> SessionLayout.DateOrder? {
        var yearFirst = false
        var firstOver12 = false
        var secondOver12 = false
        for date in dates {
            guard let (parts, isYearFirst) = numbers(date) else { continue }
            yearFirst = yearFirst || isYearFirst
            firstOver12 = firstOver12 || (!isYearFirst && parts[0] > 12)
            secondOver12 = secondOver12 || (!isYearFirst && parts[1] > 12)
        }
        switch (yearFirst, firstOver12, secondOver12) {
        case (true, false, false): return .ymd
        case (false, true, false): return .dmy
        case (false, false, true): return .mdy
        default: return nil
        }
    }

    static func date(_ text: Substring, order: SessionLayout.DateOrder) -> LocalDate? {
        guard let (p, yearFirst) = numbers(text), yearFirst == (order == .ymd) else { return nil }
        let (year, month, day) =
            switch order {
            case .ymd: (p[0], p[1], p[2])
            case .dmy: (p[2], p[1], p[0])
            case .mdy: (p[2], p[0], p[1])
            }
        return try? LocalDate(year: year, month: month, day: day)
    }

    /// "20:17", "20:17:33", "08:05:00.000", "8:05 PM", "08:05:00Z", "08:05+05:30" → (hour, minute,
    /// the offset named, if any). Seconds, when written, are 0–59 (a fraction after them is ignored).
    static func time(_ text: Substring) -> (hour: Int, minute: Int, offset: Int64?)? {
        guard let (rest, offset) = splitOffset(text.trimmingSpacesSubstring) else { return nil }
        var clock = rest.trimmingSpacesSubstring
        var pm: Bool?
        for (suffix, isPM) in [("AM", false), ("PM", true)] where clock.uppercased().hasSuffix(suffix) {
            clock = clock.dropLast(2).trimmingSpacesSubstring
            pm = isPM
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), (1...2).contains(parts[0].count), var hour = number(parts[0]),
            parts[1].count == 2, let minute = number(parts[1]), (0...59).contains(minute)
        else { return nil }
        if parts.count == 3 {
            let second = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard second[0].count == 2, let seconds = number(second[0]), (0...59).contains(seconds),
                second.dropFirst().allSatisfy({ number($0) != nil })
            else { return nil }
        }
        if let pm {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (pm ? 12 : 0)
        }
        return (0...23).contains(hour) ? (hour, minute, offset) : nil
    }

    /// The value of ASCII digits only (no sign, no spaces); nil for anything else or nothing.
    static func number(_ digits: Substring) -> Int? {
        guard (1...9).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// A clock without its trailing zone designator (ISO 8601: `Z`, `±hh:mm`, `±hhmm`, `±hh`), and
    /// the offset it names in seconds; nil when a designator is there but is not an offset.
    static func splitOffset(_ clock: Substring) -> (clock: Substring, offset: Int64?)? {
        if clock.last == "Z" || clock.last == "z" { return (clock.dropLast(), 0) }
        guard let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return (clock, nil) }
        guard let offset = ZoneLabel.offset(String(clock[sign...])) else { return nil }
        return (clock[..<sign], offset)
    }

    /// The start of `date` and `time` columns (or one column holding both).
    static func dateTime(_ dateText: String, time timeText: String?, order: SessionLayout.DateOrder)
        -> LocalDateTime?
    {
        let (datePart, inlineTime) = split(dateText)
        guard let date = date(datePart, order: order), let clock = timeText.map({ Substring($0) }) ?? inlineTime,
            let (hour, minute, offset) = time(clock)
        else { return nil }
        return LocalDateTime(date: date, hour: hour, minute: minute, offset: offset)
    }

    /// "1:30:00", "0:45" (hours:minutes[:seconds]) or "90", "7.5" (minutes, in decimal digits:
    /// not `0x10`, `1e2` or `+5`) → seconds.
    static func duration(_ text: String) -> Int64? {
        let trimmed = text.trimmingSpaces
        let decimal = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        if decimal.allSatisfy({ number($0) != nil }), let minutes = Double(trimmed), (0...1e6).contains(minutes) {
            return Int64(minutes * 60)
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false).map { number($0) }
        guard (2...3).contains(parts.count), let hours = parts[0], let minutes = parts[1],
            (0...1_000_000).contains(hours),
            (0...59).contains(minutes)
        else { return nil }
        let seconds = parts.count == 3 ? parts[2] : 0
        guard let seconds, (0...59).contains(seconds) else { return nil }
        return Int64(hours) * 3_600 + Int64(minutes * 60 + seconds)
    }
}

/// A time zone as the importer reads it: wall-clock times to instants and back.
struct ZoneReader {
    let zone: TimeZone

    func offset(at instant: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }

    /// The instants a wall-clock time names, earliest first: none in the spring gap, two in the
    /// repeated autumn hour, else one.
    func instants(_ local: LocalDateTime) -> [Int64] { instants(wall: local.wallSeconds) }

    /// The instants the wall-clock time `wall` (seconds since 1970 on the zone's clock) names.
    func instants(wall: Int64) -> [Int64] {
        let offsets = Set([offset(at: wall - 86_400), offset(at: wall + 86_400)])
        return offsets.map { wall - $0 }.filter { offset(at: $0) == wall - $0 }.sorted()
    }

    /// Whether `instant` is in the second occurrence of the repeated autumn hour (its wall-clock
    /// time names an earlier instant too).
    func isSecondOccurrence(_ instant: Int64) -> Bool {
        instants(wall: instant + offset(at: instant)).first.map { $0 < instant } ?? false
    }

    /// The instant the station-local hour holding `instant` began.
    func hourStart(of instant: Int64) -> Int64 {
        let wall = instant + offset(at: instant)
        let intoHour = wall >= 0 ? wall % 3_600 : (wall % 3_600 + 3_600) % 3_600
        return instant - intoHour
    }

    /// The wall-clock date and hour at `instant`.
    func local(_ instant: Int64) -> (date: LocalDate, hour: Int) {
        let wall = instant + offset(at: instant)
        let day = wall >= 0 ? wall / 86_400 : (wall - 86_399) / 86_400
        return (LocalDate(dayNumber: Int32(truncatingIfNeeded: day)), Int((wall - day * 86_400) / 3_600))
    }
}

/// Zone labels as session CSVs write them: abbreviations and numeric offsets.
enum ZoneLabel {
    /// Abbreviations that name several offsets (Irish, Indian and Israel Standard Time; US
    /// Central, China and Cuba Standard Time; British Summer and Bangladesh Standard Time), in hours:
    /// a row's label matches when the station's zone has any of them at that time.
    static let ambiguous: [String: [Double]] = ["IST": [1, 5.5, 2], "CST": [-6, 8, -5], "BST": [1, 6]]

    /// Offsets in hours of the abbreviations the public data sets use (and their neighbours).
    static let abbreviations: [String: Double] = [
        "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "BST": 1, "IST": 1, "WEST": 1, "CET": 1, "CEST": 2, "EET": 2,
        "EEST": 3, "PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "CST": -6, "CDT": -5, "EST": -5, "EDT": -4,
        "AKST": -9, "AKDT": -8, "HST": -10, "AWST": 8, "ACST": 9.5, "ACDT": 10.5, "AEST": 10, "AEDT": 11,
        "NZST": 12, "NZDT": 13,
    ]

    /// The offsets from UTC in seconds a label may mean: one, or several for an ``ambiguous`` one.
    static func offsets(_ label: String) -> [Int64]? {
        if let hours = ambiguous[label.trimmingSpaces.uppercased()] { return hours.map { Int64($0 * 3_600) } }
        return offset(label).map { [$0] }
    }

    /// The label's offset from UTC in seconds: "PDT", "BST", "+01:00", "-0700", "UTC+1", "GMT-7".
    static func offset(_ label: String) -> Int64? {
        var text = label.trimmingSpaces.uppercased()
        if let hours = abbreviations[text] { return Int64(hours * 3_600) }
        for prefix in ["UTC", "GMT"] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard (1...4).contains(digits.count), digits.allSatisfy(\.isASCII), let value = Int(digits) else { return nil }
        let (hours, minutes) = digits.count <= 2 ? (value, 0) : (value / 100, value % 100)
        guard hours <= 14, minutes < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * Int64(hours * 3_600 + minutes * 60)
    }
}

extension Substring {
    var trimmingSpacesSubstring: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[startIndex..<startIndex]
        }
        return self[first...last]
    }
}
