/// Reminders by the hour they fire in, so that ``Ledger/remindersDue(in:)`` costs what it finds
/// and not every booking held: a service asks every minute, and a year of bookings would
/// otherwise be walked each time.
///
/// `reminders` maps an hour (seconds since the epoch ÷ 3600, rounded down) to the records whose
/// reminder fired in it when they were indexed. A booking is indexed when it is made and again
/// when a move puts its reminder in another hour; a cancel, a displacement or a move leaves its
/// old entry behind, so a look-up re-checks each entry against its record, and a release drops
/// the entries that no longer hold (see `SlotBook+Retention.swift`).
extension SlotBook {
    /// The hour a reminder fires in: `seconds` ÷ 3600, rounded down (towards the past).
    static func reminderHour(_ seconds: Int64) -> Int64 {
        let hour = seconds / 3_600
        return seconds % 3_600 < 0 ? hour - 1 : hour
    }

    /// When the reminder of `record` fires, or `nil` when it asked for none.
    static func fireAt(_ record: BookingRecord) -> Int64? {
        record.reminder < 0 ? nil : record.start - Int64(record.reminder)
    }

    /// Indexes the reminder of `record` (its current start and offset), unless its hour already
    /// lists it as of `previousStart`, its start before a move.
    mutating func indexReminder(of record: Int, previousStart: Int64? = nil) {
        guard let fireAt = Self.fireAt(records[record]) else { return }
        let hour = Self.reminderHour(fireAt)
        if let previousStart, Self.reminderHour(previousStart - Int64(records[record].reminder)) == hour { return }
        reminders[hour, default: []].append(Int32(truncatingIfNeeded: record))
    }

    /// Whether `record` is held, active and has a reminder that fires in `hour`: whether its
    /// entry in that hour still holds.
    func remindsInHour(_ record: Int, _ hour: Int64) -> Bool {
        guard !isReleased(record: record), records[record].status == .active,
            let fireAt = Self.fireAt(records[record])
        else { return false }
        return Self.reminderHour(fireAt) == hour
    }

    /// Reminders that fall due in `window`, in no particular order.
    ///
    /// - Complexity: O(*e* + *r* log *r*) for *e* entries in the hours the window covers and *r*
    ///   of them found; the hours are walked one by one, or, for a window longer than the hours
    ///   indexed, the index is.
    func remindersDue(in window: Range<Instant>, catalog: Catalog) -> [Reminder] {
        guard !window.isEmpty else { return [] }
        let first = Self.reminderHour(window.lowerBound.secondsSinceEpoch)
        let last = Self.reminderHour(window.upperBound.secondsSinceEpoch - 1)
        var found: [Int32] = []
        func collect(_ hour: Int64, _ bucket: [Int32]) {
            found += bucket.filter { remindsInHour(Int($0), hour) }
        }
        // Both ends are hours (÷ 3600), so their difference cannot overflow.
        if last - first < Int64(reminders.count) {
            for hour in first...last { if let bucket = reminders[hour] { collect(hour, bucket) } }
        } else {
            for (hour, bucket) in reminders where (first...last).contains(hour) { collect(hour, bucket) }
        }
        found.sort()
        var result: [Reminder] = []
        for (i, index) in found.enumerated() where i == 0 || found[i - 1] != index {
            let record = records[Int(index)]
            guard let fireAt = Self.fireAt(record), window.contains(Instant(fireAt)) else { continue }
            result.append(
                Reminder(
                    booking: bookingID(record: Int(index)), user: record.user, slot: catalog.slot(record.ref),
                    fireAt: Instant(fireAt)))
        }
        return result
    }

    /// Drops the index entries that no longer hold (released, cancelled, displaced, or moved to
    /// another hour), and the hours left empty.
    ///
    /// - Complexity: O(entries indexed).
    mutating func pruneReminders() {
        var kept: [Int64: [Int32]] = [:]
        for (hour, bucket) in reminders {
            // Sorted and unique: a booking moved away and back is listed once.
            let live = Set(bucket.filter { remindsInHour(Int($0), hour) }).sorted()
            if !live.isEmpty { kept[hour] = live }
        }
        reminders = kept
    }
}
