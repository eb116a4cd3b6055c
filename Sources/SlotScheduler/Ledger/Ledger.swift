/// The deterministic booking core: the whole state of one scheduler as a value, changed one
/// command at a time on one thread.
///
/// `Ledger` is what the simulator's deterministic mode and the property tests drive; the
/// thread-safe ``Scheduler`` shards the same books and calls the same decisions. Every command
/// takes `now`; the same commands with the same `now`s give the same results and a
/// byte-identical event journal in any process.
public struct Ledger: Sendable {
    public let rules: Rules
    var slots: SlotBook
    var users: UserBook
    /// The journal's events before the last catalog change rebuilt the books, that change's
    /// included (``events``), and how many there were, those a release dropped included.
    var eventsBefore: [Event] = []
    var eventsBeforeCount = 0
    #if DEBUG
    /// Commands applied, for the debug build's consistency checks (`checkInvariantsAmortized()`).
    var commandsApplied = 0
    #endif

    /// An empty ledger. Set `journaling` to `false` to keep no event journal (saves 16 bytes
    /// per state change). The expected sizes only pre-allocate; they are not limits. User ids
    /// below `expectedUsers` find their state by direct index (16 bytes each, allocated now);
    /// other ids go through a hash table. Both hints are clamped to 0...2^23.
    public init(rules: Rules, journaling: Bool = true, expectedUsers: Int = 1024, expectedBookings: Int = 0) {
        self.rules = rules
        slots = SlotBook(catalog: rules.catalog, shard: 0, of: 1, journaling: journaling)
        users = UserBook(directUsers: Self.preallocation(expectedUsers))
        slots.prefault(bookings: Self.preallocation(expectedBookings))
        users.prefault(users: 0, bookings: Self.preallocation(expectedBookings))
    }

    /// A pre-allocation hint clamped to 0...2^23, so a wrong hint cannot take all memory or overflow.
    static func preallocation(_ hint: Int) -> Int { min(max(0, hint), 1 << 23) }

    /// Validates the stations and policy and creates an empty ledger.
    public init(stations: [Station], policy: Policy) throws(InvalidValue) {
        self.init(rules: try Rules(catalog: try Catalog(stations), policy: policy))
    }

    public var catalog: Catalog { rules.catalog }
    public var policy: Policy { rules.policy }

    /// Books one slot for one user at `now`, or throws why not. A refusal changes nothing.
    ///
    /// Repeating a ``ReservationRequest/requestID`` returns the booking it made.
    /// - Complexity: O(1) amortised; the checks run in the order the ``Rejection/Reason`` list gives.
    public mutating func reserve(_ request: ReservationRequest, at now: Instant) throws(Rejection) -> Booking {
        try book(request, at: now).booking
    }

    /// ``reserve(_:at:)-(ReservationRequest,_)``, saying whether the booking is new or the one an
    /// earlier request with the same request id made (``Reservation/isReplay``; its status may be
    /// cancelled by now).
    public mutating func book(_ request: ReservationRequest, at now: Instant) throws(Rejection) -> Reservation {
        try apply(.reserve(request), at: now).reservation()
    }

    /// The fast path: an interned slot, no request id, no reminder, and a reason instead of a
    /// full ``Rejection``. Checks every rule ``reserve(_:at:)-(ReservationRequest,_)`` checks.
    @inline(__always)
    public mutating func attempt(_ ref: SlotRef, for user: UserID, at now: Instant) -> ReservationAttempt {
        guard rules.catalog.owns(ref) else { return ReservationAttempt(reason: .unknownStation, start: 0) }
        return Decisions.reserve(
            ref, user: user, requestID: nil, reminder: nil, now: now.secondsSinceEpoch, rules: rules, slots: &slots,
            users: &users)
    }

    /// Cancels a booking: by its owner only, while it is active, before the cancellation cutoff.
    /// The slot becomes free and its reminder is removed.
    @discardableResult
    public mutating func cancel(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.cancel(id, user: user), at: now).booking()
    }

    /// Changes the hours of a socket (or a whole station) on a date and returns the bookings it
    /// displaced, sorted by socket then hour. See ``DisplacementRule`` for what happens to bookings
    /// in hours that close.
    @discardableResult
    public mutating func changeAvailability(
        _ change: AvailabilityChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) throws(Rejection) -> [Booking] {
        try apply(.changeAvailability(change, onBookings: rule), at: now).displaced()
    }

    /// The booking with `id`, in its current status.
    public func booking(_ id: BookingID) -> Booking? {
        slots.record(of: id).map { slots.booking(record: $0, catalog: rules.catalog) }
    }

    /// Every booking ever made and not released, active or not, by id.
    public var allBookings: [Booking] {
        let bookings = slots.records.storedRanges.joined().filter { !slots.isReleased(record: $0) }.map {
            slots.booking(record: $0, catalog: rules.catalog)
        }
        // Records are in id order unless some were restored with ids another layout assigned.
        return slots.restoredIDs.isEmpty ? bookings : bookings.sorted { $0.id < $1.id }
    }

    /// Number of bookings currently active (past ones included, released ones not).
    public var activeBookingCount: Int { users.activeTotal }

    /// The event journal, oldest first (empty when journaling is off); since the last
    /// ``releaseDays(before:at:)``, if any.
    public var events: [Event] { eventsBefore + slots.journal.map { slots.event($0, catalog: rules.catalog) } }

    /// Number of journal entries, those before a release included; events since an earlier
    /// count are ``events(since:)``.
    public var eventCount: Int { eventsBeforeCount + slots.journalBase + slots.journal.count }

    /// The events after the first `count` (those a release dropped are not returned).
    public func events(since count: Int) -> [Event] {
        // `count` may be any Int: compared before subtracting, so the difference cannot overflow.
        var before: [Event] = []
        if count < eventsBeforeCount {
            let dropped = eventsBeforeCount - eventsBefore.count
            before = Array(eventsBefore[max(0, count <= dropped ? 0 : count - dropped)...])
        }
        let base = eventsBeforeCount + slots.journalBase
        let start = count <= base ? 0 : min(count - base, slots.journal.count)
        return before + slots.journal[start...].map { slots.event($0, catalog: rules.catalog) }
    }
}
