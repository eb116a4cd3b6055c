import Foundation

/// Converts between a station's local (date, hour) and instants, with an explicit DST rule.
///
/// **The DST rule.** A slot is named by its local date and hour.
/// - *Skipped hour* (spring forward, e.g. Europe/London 2018-03-25 01:00): that local hour does
///   not exist, so its slot cannot be booked (``Rejection/Reason/nonexistentLocalTime``).
/// - *Repeated hour* (fall back, e.g. Europe/London 2018-10-28 01:00, which happens twice): the
///   slot means the **first** occurrence (the earlier instant, still in summer time). The second
///   occurrence is not a separate slot and cannot be booked.
///
/// Transitions come from Foundation once per zone in a process, when the first catalog naming
/// it is built; after that every conversion is integer arithmetic over a table of one offset
/// per day (years 2000–2099), with an exact search over the transitions for DST days and dates
/// outside the table.
struct ZoneClock: Sendable {
    let identifier: String
    /// Instants (seconds) where the UTC offset changes, ascending.
    private let transitions: [Int64]
    /// `offsets[i]` holds before `transitions[i]`; the last one after the last transition.
    private let offsets: [Int32]
    let tableFirstDay: Int32
    /// Offset at local midnight per day, or `Int32.min` when the offset changes that day.
    let dayOffsets: [Int32]

    static let tableDays =
        LocalDate.dayNumber(
            year: 2000, month: 1, day: 1)..<LocalDate.dayNumber(
            year: 2100, month: 1, day: 1)

    /// The clocks built so far, by zone name: a catalog's zone costs Foundation's transitions
    /// and a table of 36,525 days once per process, not once per catalog (the property tests
    /// build a catalog per case; half their time went here). At most ``builtLimit`` names, so
    /// catalogs naming ever new spellings cannot grow it without bound. Its lock also
    /// serialises Foundation's time-zone code, which is not safe to call from several threads
    /// at once on Linux (an exclusivity violation when catalogs are built concurrently).
    private static let built = BuiltClocks()
    static let builtLimit = 1_024

    /// `nil` for a name Foundation does not know, and for a fixed-offset spelling (see
    /// ``isFixedOffset(_:)``).
    init?(identifier: String) {
        guard !Self.isFixedOffset(identifier) else { return nil }
        let clock = Self.built.withLock { built -> ZoneClock? in
            if let clock = built[identifier] { return clock }
            guard let (transitions, offsets) = Self.transitions(of: identifier) else { return nil }
            let clock = ZoneClock(identifier: identifier, transitions: transitions, offsets: offsets)
            if built.count < Self.builtLimit { built[identifier] = clock }
            return clock
        }
        guard let clock else { return nil }
        self = clock
    }

    /// Whether `identifier` spells a fixed offset (`GMT+0530`, `UTC+05:30`, `UT-3`) rather than
    /// naming a zone. Foundation accepts these, in several spellings of one offset, but they are
    /// not names in the IANA time zone database and follow no civil time: a station names its
    /// zone (`Asia/Kolkata`); a whole-hour fixed offset has a database name too (`Etc/GMT-5`).
    static func isFixedOffset(_ identifier: String) -> Bool {
        for prefix in ["GMT", "UTC", "UT"] where identifier.hasPrefix(prefix) {
            let rest = identifier.utf8.dropFirst(prefix.utf8.count)
            if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { return true }
        }
        return false
    }

    /// Why a station may not name `identifier` as its zone, in English and Turkish.
    static func refusal(of identifier: String) -> (english: String, turkish: String) {
        isFixedOffset(identifier)
            ? (
                "an IANA time zone name, not a fixed offset (such as Asia/Kolkata, or Etc/GMT-5 for a whole-hour offset)",
                "sabit bir fark değil, bir IANA saat dilimi adı (Asia/Kolkata gibi)"
            )
            : ("an IANA time zone such as Europe/London", "Europe/Istanbul gibi bir IANA saat dilimi")
    }

    private static func transitions(of identifier: String) -> ([Int64], [Int32])? {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        var transitions: [Int64] = []
        var offsets: [Int32] = []
        let start = Date(timeIntervalSince1970: -2_208_988_800)  // 1900-01-01
        let end: Int64 = 13_569_465_600  // 2400-01-01
        offsets.append(Int32(zone.secondsFromGMT(for: start)))
        var cursor = start
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor),
            Int64(next.timeIntervalSince1970) < end
        {
            let offset = Int32(zone.secondsFromGMT(for: next))
            if offset != offsets[offsets.count - 1] {
                transitions.append(Int64(next.timeIntervalSince1970))
                offsets.append(offset)
            }
            cursor = next
        }
        return (transitions, offsets)
    }

    private init(identifier: String, transitions: [Int64], offsets: [Int32]) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsets = offsets
        tableFirstDay = Self.tableDays.lowerBound
        var table = [Int32](repeating: 0, count: Self.tableDays.count)
        var t = 0
        for (i, day) in Self.tableDays.enumerated() {
            // The window of instants that can fall on this local day in any zone (UTC-12...UTC+14).
            let low = Int64(day) * 86_400 - 50_400
            let high = Int64(day + 1) * 86_400 + 43_200
            while t < transitions.count, transitions[t] < low { t += 1 }
            table[i] = t < transitions.count && transitions[t] < high ? Int32.min : offsets[t]
        }
        dayOffsets = table
    }

    /// The UTC offset (seconds) in force at `instant`.
    ///
    /// - Complexity: O(log *t*) in the number of transitions.
    func offset(at instant: Int64) -> Int32 {
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= instant { low = mid + 1 } else { high = mid }
        }
        return offsets[low]
    }

    /// The instant local `hour` of `day` starts, or `nil` if that local time does not exist.
    ///
    /// - Complexity: O(1) for days of the table without a transition, O(log *t*) otherwise.
    @inline(__always)
    func start(day: Int32, hour: Int) -> Int64? {
        let index = Int(day &- tableFirstDay)
        if index >= 0, index < dayOffsets.count,
            let start = Self.start(day: day, hour: hour, tableOffset: dayOffsets[index])
        {
            return start
        }
        return exactStart(day: day, hour: hour)
    }

    /// The start of local `hour` on `day` from the day's table entry, or `nil` when the entry
    /// marks a day with a transition (then ask ``exactStart(day:hour:)``).
    @inline(__always)
    static func start(day: Int32, hour: Int, tableOffset offset: Int32) -> Int64? {
        // Cannot overflow: day is an Int32, hour < 24, |offset| < 1 day.
        offset == Int32.min ? nil : Int64(day) &* 86_400 &+ Int64(hour) &* 3_600 &- Int64(offset)
    }

    func exactStart(day: Int32, hour: Int) -> Int64? {
        let local = Int64(day) * 86_400 + Int64(hour) * 3_600
        var first: Int64?
        for candidate in [offset(at: local - 86_400), offset(at: local + 86_400)] {
            let instant = local - Int64(candidate)
            if offset(at: instant) == candidate { first = min(first ?? instant, instant) }
        }
        return first
    }

    /// The local date at `instant`. Instants beyond about ±5.8 million years are clamped
    /// there, so the day always fits an `Int32` with room to add a horizon to it.
    func localDay(at instant: Int64) -> Int32 {
        let limit: Int64 = 2_000_000_000 * 86_400
        let clamped = Swift.min(Swift.max(instant, -limit), limit)
        let local = clamped + Int64(offset(at: clamped))
        return Int32(Instant.floorDivide(local, 86_400).quotient)
    }
}

/// The clocks built so far (``ZoneClock/built``), behind a lock.
///
/// An `NSLock`, not `Synchronization.Mutex`: on Linux ThreadSanitizer sees a pthread mutex (which
/// `NSLock` is) as the synchronisation it is, and not `Mutex`, so the concurrency tests that run
/// under it reported the dictionary's accesses as a race. `@unchecked Sendable`: `clocks` is
/// read and written only inside ``withLock(_:)``, while `lock` is held.
private final class BuiltClocks: @unchecked Sendable {
    private let lock = NSLock()
    private var clocks: [String: ZoneClock] = [:]

    func withLock<T>(_ body: (inout [String: ZoneClock]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&clocks)
    }
}
