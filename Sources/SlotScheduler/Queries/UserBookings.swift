/// A user's bookings split at `now` into four disjoint lists (OCPI's RESERVED, FULFILLED,
/// NO_SHOW and CANCELED):
/// - ``upcoming``: active, not checked in, and not (yet) a no-show: awaiting their check-in,
///   soonest first;
/// - ``fulfilled``: checked in (in session, or ended by a check-out: ``Booking/Status/fulfilled``),
///   most recent first;
/// - ``noShow``: active, not checked in, and `now` past their start + ``Policy/noShowGraceSeconds``
///   (decided by `now` alone), most recent first;
/// - ``cancelled``: cancelled by their owner or displaced by an availability change (their
///   ``Booking/status`` says which), most recent first.
///
/// Bookings that start at the same instant are ordered by slot, which does not depend on how ids
/// were assigned (a ``Scheduler``'s ids carry its shard), so every store lists them alike; the
/// bookings of one slot (cancelled ones, for instance) by id, the order they were made in.
/// ``past`` is kept for callers of the earlier two-way split (and for stores without check-in):
/// the active bookings whose hour has ended, most recent first.
/// With the default grace (the whole hour) and no check-ins, ``noShow`` is exactly ``past``.
public struct UserBookings: Hashable, Codable, Sendable {
    public var upcoming: [Booking]
    public var fulfilled: [Booking]
    public var noShow: [Booking]
    public var cancelled: [Booking]

    init(_ bookings: [Booking], at now: Instant, grace: Int64 = Booking.durationSeconds) {
        let sorted = bookings.sorted { ($0.start, $0.slot, $0.id) < ($1.start, $1.slot, $1.id) }
        let active = sorted.filter { $0.status == .active }
        upcoming = active.filter { $0.checkedInAt == nil && !$0.isNoShow(at: now, grace: grace) }
        fulfilled = sorted.filter { $0.checkedInAt != nil && ($0.status == .active || $0.status == .fulfilled) }
            .reversed()
        noShow = active.filter { $0.isNoShow(at: now, grace: grace) }.reversed()
        cancelled = sorted.filter { $0.status == .cancelled || $0.status == .displaced }.reversed()
        ended = active.filter { !$0.isUpcoming(at: now) }.reversed()
    }

    /// The active bookings whose hour has ended at `now` (checked in or not), most recent first.
    public var past: [Booking] { ended }
    private var ended: [Booking]

    enum CodingKeys: String, CodingKey { case upcoming, fulfilled, noShow, cancelled, past }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        upcoming = try c.decode([Booking].self, forKey: .upcoming)
        fulfilled = try c.decodeIfPresent([Booking].self, forKey: .fulfilled) ?? []
        noShow = try c.decodeIfPresent([Booking].self, forKey: .noShow) ?? []
        cancelled = try c.decodeIfPresent([Booking].self, forKey: .cancelled) ?? []
        ended = try c.decodeIfPresent([Booking].self, forKey: .past) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(upcoming, forKey: .upcoming)
        try c.encode(fulfilled, forKey: .fulfilled)
        try c.encode(noShow, forKey: .noShow)
        try c.encode(cancelled, forKey: .cancelled)
        try c.encode(ended, forKey: .past)
    }
}

extension Ledger {
    /// The user's bookings at `now`: upcoming, fulfilled, no-show and cancelled.
    ///
    /// - Complexity: O(*k* log *k*) in the user's bookings held (active, cancelled and displaced).
    public func bookings(of user: UserID, at now: Instant) -> UserBookings {
        let ids = users.activeBookings(of: user) + users.closedBookings(of: user)
        return UserBookings(ids.compactMap(booking), at: now, grace: rules.policy.noShowGraceSeconds)
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
    /// - Complexity: O(*e* + *r* log *r*): *e* reminders indexed in the hours the window covers
    ///   (or every one indexed, for a window longer than that), *r* of them due; not the bookings
    ///   held.
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
