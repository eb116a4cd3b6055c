/// A user's active bookings split at `now`: upcoming ones (not yet ended, soonest first) and
/// past ones (most recent first). Cancelled and displaced bookings are in neither. Bookings that
/// start at the same instant are ordered by slot, which does not depend on how ids were assigned
/// (a ``Scheduler``'s ids carry its shard), so every store lists them alike.
public struct UserBookings: Hashable, Codable, Sendable {
    public var upcoming: [Booking]
    public var past: [Booking]

    init(_ bookings: [Booking], at now: Instant) {
        let sorted = bookings.filter { $0.status == .active }.sorted { ($0.start, $0.slot) < ($1.start, $1.slot) }
        upcoming = sorted.filter { $0.isUpcoming(at: now) }
        past = sorted.filter { !$0.isUpcoming(at: now) }.reversed()
    }
}

extension Ledger {
    /// The user's bookings, upcoming and past at `now`.
    ///
    /// - Complexity: O(*k* log *k*) in the user's active bookings.
    public func bookings(of user: UserID, at now: Instant) -> UserBookings {
        UserBookings(users.activeBookings(of: user).compactMap(booking), at: now)
    }

    /// The picker view of a station on a date at `now`.
    public func dayView(of station: StationID, on date: LocalDate, at now: Instant) throws(Rejection) -> DayView {
        let index = try rules.catalog.index(of: station, on: date)
        return slots.dayView(station: index, date: date, now: now.secondsSinceEpoch, rules: rules)
    }

    /// Whether `slot` could be booked at `now` by someone under their limit, and if not, why.
    public func status(of slot: Slot, at now: Instant) throws(Rejection) -> SlotStatus {
        slots.status(try rules.catalog.resolve(slot), now: now.secondsSinceEpoch, rules: rules)
    }

    /// Reminders that fall due in `window` (lower bound included), by time then booking id.
    ///
    /// - Complexity: O(*n*) in the bookings held (not released).
    public func remindersDue(in window: Range<Instant>) -> [Reminder] {
        slots.remindersDue(in: window, catalog: rules.catalog).sorted {
            ($0.fireAt, $0.booking) < ($1.fireAt, $1.booking)
        }
    }

    /// For each station matching `filter`, its earliest free slot at `now`; see ``SlotFilter``.
    public func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) -> [FreeSlot] {
        FreeSlot.search(filter, rules: rules, now: now) { station, body in body(slots) }
    }
}

extension SlotBook {
    func remindersDue(in window: Range<Instant>, catalog: Catalog) -> [Reminder] {
        var result: [Reminder] = []
        for index in records.indices where !isReleased(record: index) {
            let record = records[index]
            guard record.status == .active, record.reminder >= 0 else { continue }
            let fireAt = Instant(record.start - Int64(record.reminder))
            if window.contains(fireAt) {
                result.append(
                    Reminder(
                        booking: bookingID(record: index), user: record.user, slot: catalog.slot(record.ref),
                        fireAt: fireAt))
            }
        }
        return result
    }
}
