/// The booking operations every store offers: the in-memory ``Scheduler``, the journal store
/// (`SlotSchedulerJournal`) and the PostgreSQL store (`SlotSchedulerPostgres`). The simulator
/// drives any of them through this protocol.
///
/// Every store decides with the same rules and refuses with the same
/// ``Rejection/Reason``: a store's answer to a sequence of calls is the ``Scheduler``'s.
/// Refusals are thrown as ``Rejection``; a store may also throw its own errors (a lost
/// database connection), which are never refusals.
public protocol BookingService: Sendable {
    /// The catalog and policy this store enforces.
    var rules: Rules { get }
    /// Books a slot; says whether the booking is new or repeats an earlier request id.
    func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation
    /// Books a slot: ``book(_:at:)-(ReservationRequest,_)`` without telling a replay from a new
    /// booking.
    func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking
    /// Books the first free matching socket of a station (catalog order), atomically; see
    /// ``Scheduler/book(_:at:)-(AnySocketRequest,_)``.
    func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation
    /// Books the first free matching socket: ``book(_:at:)-(AnySocketRequest,_)`` without telling
    /// a replay from a new booking.
    func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking
    /// Holds a slot for a user until `now +` ``Policy/holdSeconds``; see ``Scheduler/hold(_:for:reminder:at:)``.
    func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold
    /// Turns the user's live hold of a slot into a booking, atomically; see ``Scheduler/confirm(_:by:at:)``.
    func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking
    /// Releases the user's live hold of a slot; see ``Scheduler/releaseHold(_:by:at:)``.
    func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold
    /// Moves a booking to another slot of its station in one atomic step; see
    /// ``Scheduler/reschedule(_:at:)``.
    func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking
    /// Checks a booking in, by its owner, from its start − ``Policy/earlyCheckInSeconds`` until its
    /// start + ``Policy/noShowGraceSeconds``, presenting its socket's ``Socket/accessCode`` when it
    /// has one; a repeat returns the booking; see ``Scheduler/checkIn(_:by:accessCode:at:)``. One
    /// not checked in by then is a no-show (``UserBookings/noShow``, from ``bookings(of:at:)``).
    func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws -> Booking
    /// Checks a booking in without an access code; by default
    /// ``checkIn(_:by:accessCode:at:)`` with `nil` (a requirement, so a store's own synchronous
    /// one, the ``Scheduler``'s, is what a call on the store means, in an async context too).
    func checkIn(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking
    /// Ends a checked-in booking's session, by its owner: fulfilled, its slot freed; see
    /// ``Scheduler/checkOut(_:by:at:)``.
    func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking
    func changeAvailability(_ change: AvailabilityChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> [Booking]
    func bookings(of user: UserID, at now: Instant) async throws -> UserBookings
    /// One page of one of the user's lists at `now`, in that list's order (``UserBookings``):
    /// a read bounded by the page, not by the user's history, where the store can (see
    /// ``BookingService/bookings(of:in:at:page:)-(_,_,_,_)``).
    func bookings(of user: UserID, in list: BookingList, at now: Instant, page: PageRequest) async throws
        -> BookingPage
    /// One booking in its current status, whoever owns it (the caller decides who may see it),
    /// or `nil` for an id the store does not hold (never issued, or released by retention).
    func booking(_ id: BookingID) async throws -> Booking?
    /// The active bookings of `station` whose start lies in `window`, by start, then socket:
    /// what its chargers should hold reserved soon (the OCPP bridge asks for the next minutes).
    /// The cost grows with the window and the station, not with the history.
    func bookings(at station: StationID, startingIn window: Range<Instant>) async throws -> [Booking]
    func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView
    /// The holds that live at `now`, by slot.
    func holds(at now: Instant) async throws -> [Hold]
    /// The reminders that fall due in `window`, by time, then booking id: what a notifier asks for
    /// every minute. The cost grows with the reminders found, not with the history.
    func remindersDue(in window: Range<Instant>) async throws -> [Reminder]
    /// For each station matching `filter`, its earliest free slot at `now`: nearest first when the
    /// filter gives a place, else earliest first. A store without a search of its own reads it
    /// from its day views (``earliestFreeSlotsFromDayViews(matching:at:)``).
    func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) async throws -> [FreeSlot]
    /// Every booking ever made, by id.
    func allBookingsByID() async throws -> [Booking]
    /// Puts a new station list in service (see ``Ledger/changeCatalog(_:onBookings:at:)`` and
    /// <doc:ChangingTheCatalog>); the durable stores do, and every later call runs under it. A
    /// ``Scheduler`` serves one catalog for its life: it refuses with
    /// ``Rejection/Reason/catalogFixed`` (``Scheduler/changingCatalog(_:onBookings:at:)`` builds
    /// the next one).
    func changeCatalog(_ change: CatalogChange, onBookings rule: DisplacementRule, at now: Instant) async throws
        -> CatalogChangeResult
    /// Moves a station to `place` (a shared vehicle left where its ride ended): the catalog change
    /// ``Catalog/relocating(_:to:)`` builds from the store's catalog as it is when the change is
    /// applied, so two relocations at once both stand. The durable stores build it under their
    /// own serialization (the journal store's lock, PostgreSQL's catalog row); the default builds
    /// it from ``rules`` and calls ``changeCatalog(_:onBookings:at:)``.
    func relocate(_ station: StationID, to place: Coordinate, at now: Instant) async throws -> CatalogChangeResult
    /// Checks a booking out and leaves its resource at `place`: ``checkOut(_:by:at:)``, then
    /// ``relocate(_:to:at:)`` of the booking's station (see the default). A ``Scheduler`` refuses
    /// with ``Rejection/Reason/catalogFixed`` before it checks out.
    func checkOut(_ id: BookingID, by user: UserID, leftAt place: Coordinate, at now: Instant) async throws
        -> Booking
}

extension BookingService {
    /// Moves a station from the catalog in ``rules``; see ``relocate(_:to:at:)``.
    public func relocate(_ station: StationID, to place: Coordinate, at now: Instant) async throws
        -> CatalogChangeResult
    {
        try await changeCatalog(try rules.catalog.relocating(station, to: place), onBookings: .refuse, at: now)
    }

    /// Checks a booking out and leaves its resource at `place`: ``checkOut(_:by:at:)``, then
    /// ``relocate(_:to:at:)`` of the booking's station. A place that is not a point on Earth is
    /// refused before the check-out (``Rejection/Reason/invalidCatalog``). The two steps are two
    /// commands: once the check-out is kept, a relocation that fails leaves the station where it
    /// was, and the caller moves it again with ``relocate(_:to:at:)`` (a check-out is not repeated).
    ///
    /// - Returns: the booking checked out.
    public func checkOut(_ id: BookingID, by user: UserID, leftAt place: Coordinate, at now: Instant) async throws
        -> Booking
    {
        try Catalog.checkPlace(place)
        let booking = try await checkOut(id, by: user, at: now)
        _ = try await relocate(booking.slot.station, to: place, at: now)
        return booking
    }

    /// Checks a booking in without an access code: ``checkIn(_:by:accessCode:at:)``.
    public func checkIn(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await checkIn(id, by: user, accessCode: nil, at: now)
    }

    /// ``earliestFreeSlots(matching:at:)`` read from ``dayView(of:on:at:)``: each matching
    /// station's dates from its local date at `now`, one day view each, until a free slot or the
    /// horizon. The same search as the ``Scheduler``'s, over the statuses the store reports.
    ///
    /// - Complexity: at most `filter.searchDays + 1` day views per matching station.
    public func earliestFreeSlotsFromDayViews(matching filter: SlotFilter, at now: Instant) async throws
        -> [FreeSlot]
    {
        let search = FreeSlot.Search(filter, rules: rules, now: now)
        var found: [FreeSlot] = []
        for candidate in search.candidates {
            let station = rules.catalog.station(at: candidate.station)
            for day in search.days(of: candidate) {
                let view = try await dayView(of: station.id, on: LocalDate(dayNumber: day), at: now)
                let scan = search.scan(candidate, day: day) { socket, hour in
                    socket < view.sockets.count ? view.sockets[socket].hours[hour] : .nonexistent
                }
                if case .found(let slot) = scan { found.append(slot) }
                if scan != .nothing { break }
            }
        }
        return search.ranked(found)
    }
}

extension Scheduler: BookingService {
    public func allBookingsByID() async throws -> [Booking] { allBookings }

    /// Refuses with ``Rejection/Reason/catalogFixed`` and checks nothing out: a scheduler cannot
    /// move a station (see ``changeCatalog(_:onBookings:at:)``).
    public func checkOut(_ id: BookingID, by user: UserID, leftAt place: Coordinate, at now: Instant) async throws
        -> Booking
    {
        throw Rejection(.catalogFixed, booking: id, user: user)
    }

    /// Refuses with ``Rejection/Reason/catalogFixed``: a scheduler serves one catalog for its life
    /// (``changingCatalog(_:onBookings:at:)`` builds the next scheduler).
    public func changeCatalog(_ change: CatalogChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> CatalogChangeResult
    {
        switch apply(.changeCatalog(change, onBookings: rule), at: now) {
        case .refused(let rejection): throw rejection
        default: preconditionFailure("a scheduler's apply refuses a catalog change")
        }
    }
}
