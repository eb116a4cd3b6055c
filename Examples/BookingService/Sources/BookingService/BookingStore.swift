import SlotScheduler
import SlotSchedulerJournal

/// What the routes need from where bookings live: the in-memory ``Scheduler`` (state lost on
/// exit) or a durable store. Refusals are thrown as ``Rejection``; anything else is a failure
/// of the store (answered 500).
protocol BookingStore: Sendable {
    var rules: Rules { get }
    func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking
    func booking(_ id: BookingID) async throws -> Booking?
    func bookings(of user: UserID, at now: Instant) async throws -> UserBookings
    func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView
    func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation
    func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold
    func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking
    func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold
    func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation
    func checkIn(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking
    /// Why the store cannot take writes now, or `nil` when it can (`GET /health/ready`).
    var notReadyBecause: String? { get }
}

/// In memory: fast, and empty again after a restart.
struct MemoryStore: BookingStore {
    let scheduler: Scheduler
    var rules: Rules { scheduler.rules }
    /// Memory is always ready.
    var notReadyBecause: String? { nil }

    func book(_ request: ReservationRequest, at now: Instant) throws -> Reservation {
        try scheduler.book(request, at: now)
    }
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) throws -> Booking {
        try scheduler.cancel(id, by: user, at: now)
    }
    func booking(_ id: BookingID) -> Booking? { scheduler.booking(id) }
    func bookings(of user: UserID, at now: Instant) -> UserBookings { scheduler.bookings(of: user, at: now) }
    func dayView(of station: StationID, on date: LocalDate, at now: Instant) throws -> DayView {
        try scheduler.dayView(of: station, on: date, at: now)
    }
    func book(_ request: AnySocketRequest, at now: Instant) throws -> Reservation {
        try scheduler.book(request, at: now)
    }
    func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) throws -> Hold {
        try scheduler.hold(slot, for: user, reminder: reminder, at: now)
    }
    func confirm(_ slot: Slot, by user: UserID, at now: Instant) throws -> Booking {
        try scheduler.confirm(slot, by: user, at: now)
    }
    func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) throws -> Hold {
        try scheduler.releaseHold(slot, by: user, at: now)
    }
    func reschedule(_ request: RescheduleRequest, at now: Instant) throws -> Reservation {
        try scheduler.reschedule(request, at: now)
    }
    func checkIn(_ id: BookingID, by user: UserID, at now: Instant) throws -> Booking {
        try scheduler.checkIn(id, by: user, at: now)
    }
}

/// Durable (`--journal DIR`): every answer comes after the change it reports, and everything it
/// could have seen, is `fdatasync`'ed; a restart, a crash or `kill -9` keeps every booking
/// answered 201 and never reissues its id. One process per directory.
struct JournalBackedStore: BookingStore {
    let store: JournalStore
    var rules: Rules { store.rules }
    /// After a failed write or sync the store refuses every command until it is reopened: the
    /// instance should leave the load balancer and be restarted (recovery keeps what it answered).
    var notReadyBecause: String? {
        let statistics = store.statistics
        if let failure = statistics.failure { return "the journal failed: \(failure)" }
        return statistics.isClosed ? "the journal is closed" : nil
    }

    func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation {
        try await store.book(request, at: now)
    }
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await store.cancel(id, by: user, at: now)
    }
    func booking(_ id: BookingID) async throws -> Booking? { try await store.booking(id) }
    func bookings(of user: UserID, at now: Instant) async throws -> UserBookings {
        try await store.bookings(of: user, at: now)
    }
    func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView {
        try await store.dayView(of: station, on: date, at: now)
    }
    func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        try await store.book(request, at: now)
    }
    func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold {
        try await store.hold(slot, for: user, reminder: reminder, at: now)
    }
    func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        try await store.confirm(slot, by: user, at: now)
    }
    func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        try await store.releaseHold(slot, by: user, at: now)
    }
    func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        try await store.reschedule(request, at: now)
    }
    func checkIn(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await store.checkIn(id, by: user, at: now)
    }
}
