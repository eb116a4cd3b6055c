/// The booking operations every store offers: the in-memory ``Scheduler`` and the PostgreSQL
/// store (`SlotSchedulerPostgres`). The simulator drives any of them through this protocol.
///
/// Refusals are thrown as ``Rejection``; a store may also throw its own errors (a lost
/// database connection), which are never refusals.
public protocol BookingService: Sendable {
    /// The catalog and policy this store enforces.
    var rules: Rules { get }
    /// Books a slot; says whether the booking is new or repeats an earlier request id.
    func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation
    /// Books a slot: ``book(_:at:)`` without telling a replay from a new booking.
    func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking
    func changeAvailability(_ change: AvailabilityChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> [Booking]
    func bookings(of user: UserID, at now: Instant) async throws -> UserBookings
    func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView
    /// Every booking ever made, by id.
    func allBookingsByID() async throws -> [Booking]
}

extension Scheduler: BookingService {
    public func allBookingsByID() async throws -> [Booking] { allBookings }
}
