#if Observability  // built with `--traits Observability` only (Package.swift)
import Logging
import Metrics
import SlotScheduler
import Tracing

/// Any store, observed: each call logged through the application's `Logger`, counted and timed
/// with swift-metrics, and traced in a swift-distributed-tracing span (`CallObserver`), in the
/// same words for the in-memory `Scheduler`, the journal store and the
/// PostgreSQL store.
///
/// ```swift
/// let store = ObservedBookingService(journal, store: "journal", logger: logger)
/// let booking = try await store.reserve(request, at: now)  // counted, timed, traced, logged
/// ```
///
/// It answers exactly what `base` answers and throws what it throws; it only watches.
/// Metrics go to `metricsFactory` and spans to `tracer`, by default the ones the application
/// bootstrapped (`MetricsSystem`, `InstrumentationSystem`).
public struct ObservedBookingService<Base: BookingService>: BookingService {
    /// The store observed.
    public let base: Base
    let observer: CallObserver

    /// Observes `base`, naming it `store` (the `store` dimension and attribute: `memory`,
    /// `journal`, `postgres`, …).
    public init(
        _ base: Base, store: String, logger: Logger, metricsFactory: any MetricsFactory = MetricsSystem.factory,
        tracer: any Tracer = InstrumentationSystem.tracer
    ) {
        self.base = base
        observer = CallObserver(store: store, logger: logger, factory: metricsFactory, tracer: tracer)
    }

    public var rules: Rules { base.rules }

    // MARK: Commands

    public func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation {
        try await observer.call(.reserve, { try await base.book(request, at: now) }, describe: Self.reservation)
    }

    public func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        try await observer.call(.reserve, { try await base.reserve(request, at: now) }, describe: Self.booking)
    }

    public func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        try await observer.call(
            .reserveAnySocket, { try await base.book(request, at: now) }, describe: Self.reservation)
    }

    public func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        try await observer.call(.reserveAnySocket, { try await base.reserve(request, at: now) }, describe: Self.booking)
    }

    public func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold {
        try await observer.call(.hold) { try await base.hold(slot, for: user, reminder: reminder, at: now) }
    }

    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        try await observer.call(.confirm, { try await base.confirm(slot, by: user, at: now) }, describe: Self.booking)
    }

    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        try await observer.call(.releaseHold) { try await base.releaseHold(slot, by: user, at: now) }
    }

    public func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        try await observer.call(
            .reschedule, booking: request.booking, { try await base.reschedule(request, at: now) },
            describe: Self.reservation)
    }

    public func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await observer.call(
            .cancel, booking: id, { try await base.cancel(id, by: user, at: now) }, describe: Self.booking)
    }

    public func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws
        -> Booking
    {
        try await observer.call(
            .checkIn, booking: id, { try await base.checkIn(id, by: user, accessCode: accessCode, at: now) },
            describe: Self.booking)
    }

    public func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await observer.call(
            .checkOut, booking: id, { try await base.checkOut(id, by: user, at: now) }, describe: Self.booking)
    }

    /// One call: the base's check-out and its relocation (`BookingService.checkOut(_:by:leftAt:at:)`).
    public func checkOut(_ id: BookingID, by user: UserID, leftAt place: Coordinate, at now: Instant) async throws
        -> Booking
    {
        try await observer.call(
            .checkOut, booking: id, { try await base.checkOut(id, by: user, leftAt: place, at: now) },
            describe: Self.booking)
    }

    public func changeAvailability(_ change: AvailabilityChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> [Booking]
    {
        try await observer.call(.changeAvailability) {
            try await base.changeAvailability(change, onBookings: rule, at: now)
        }
    }

    public func changeCatalog(_ change: CatalogChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> CatalogChangeResult
    {
        try await observer.call(.changeCatalog) { try await base.changeCatalog(change, onBookings: rule, at: now) }
    }

    public func relocate(_ station: StationID, to place: Coordinate, at now: Instant) async throws
        -> CatalogChangeResult
    {
        try await observer.call(.relocate) { try await base.relocate(station, to: place, at: now) }
    }

    // MARK: Queries

    public func bookings(of user: UserID, at now: Instant) async throws -> UserBookings {
        try await observer.call(.bookings) { try await base.bookings(of: user, at: now) }
    }

    public func bookings(of user: UserID, in list: BookingList, at now: Instant, page: PageRequest) async throws
        -> BookingPage
    {
        try await observer.call(.bookings) { try await base.bookings(of: user, in: list, at: now, page: page) }
    }

    public func booking(_ id: BookingID) async throws -> Booking? {
        try await observer.call(.booking, booking: id) { try await base.booking(id) }
    }

    public func bookings(at station: StationID, startingIn window: Range<Instant>) async throws -> [Booking] {
        try await observer.call(.stationBookings) { try await base.bookings(at: station, startingIn: window) }
    }

    public func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView {
        try await observer.call(.dayView) { try await base.dayView(of: station, on: date, at: now) }
    }

    public func holds(at now: Instant) async throws -> [Hold] {
        try await observer.call(.holds) { try await base.holds(at: now) }
    }

    public func remindersDue(in window: Range<Instant>) async throws -> [Reminder] {
        try await observer.call(.remindersDue) { try await base.remindersDue(in: window) }
    }

    public func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) async throws -> [FreeSlot] {
        try await observer.call(.earliestFreeSlots) { try await base.earliestFreeSlots(matching: filter, at: now) }
    }

    public func allBookingsByID() async throws -> [Booking] {
        try await observer.call(.allBookings) { try await base.allBookingsByID() }
    }

    private static func reservation(_ r: Reservation) -> (CallOutcome, BookingID?) {
        (r.isReplay ? .replayed : .accepted, r.booking.id)
    }

    private static func booking(_ b: Booking) -> (CallOutcome, BookingID?) { (.accepted, b.id) }
}
#endif
