import Foundation
import SlotScheduler

/// The in-memory store threads mode runs a scenario whose check-outs move resources on
/// (``Workload/leftWithinKm``, a step's `leftAt`): a `Scheduler`, replaced by the next one at
/// each catalog change, as the journal store replaces its own under its lock.
///
/// A scheduler serves one catalog for its life (`Scheduler.changingCatalog(_:onBookings:at:)`
/// builds the next), so something must stop calls while it is replaced. Here every call shares
/// a read-write lock and a catalog change (so a relocation, and the moving check-out that
/// ends with one: `BookingService.checkOut(_:by:leftAt:at:)`) takes it alone: calls still
/// run on the scheduler's shards at once, and none is lost to a replacement. Scenarios that
/// move nothing run on a bare `Scheduler`, without the lock's shared counter.
public final class RelocatingScheduler: BookingService, @unchecked Sendable {
    // @unchecked: `current` is read only under `lock` held shared and written only under it held
    // alone (``changeCatalog(_:onBookings:at:)``), which the compiler cannot see.
    private var current: Scheduler
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    public init(_ scheduler: Scheduler) {
        current = scheduler
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        // A catalog change waits for the calls in progress, not for every call to come.
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// The scheduler now in service, for a call that does not wait while holding it.
    private func shared<T, E: Error>(_ body: (Scheduler) throws(E) -> T) throws(E) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(current)
    }

    public var rules: Rules { shared { $0.rules } }

    /// Builds the next scheduler under the changed catalog and puts it in service, with every
    /// other call held back meanwhile; on a refusal the scheduler stays.
    public func changeCatalog(_ change: CatalogChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> CatalogChangeResult
    {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        let (next, outcome) = current.changingCatalog(change, onBookings: rule, at: now)
        current = next
        return try outcome.catalogChange()
    }

    public func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation {
        try shared { s throws(Rejection) in try s.book(request, at: now) }
    }
    public func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        try shared { s throws(Rejection) in try s.reserve(request, at: now) }
    }
    public func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        try shared { s throws(Rejection) in try s.book(request, at: now) }
    }
    public func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        try shared { s throws(Rejection) in try s.reserve(request, at: now) }
    }
    public func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold {
        try shared { s throws(Rejection) in try s.hold(slot, for: user, reminder: reminder, at: now) }
    }
    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        try shared { s throws(Rejection) in try s.confirm(slot, by: user, at: now) }
    }
    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        try shared { s throws(Rejection) in try s.releaseHold(slot, by: user, at: now) }
    }
    public func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        try shared { s throws(Rejection) in try s.reschedule(request, at: now) }
    }
    public func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try shared { s throws(Rejection) in try s.cancel(id, by: user, at: now) }
    }
    public func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws
        -> Booking
    {
        try shared { s throws(Rejection) in try s.checkIn(id, by: user, accessCode: accessCode, at: now) }
    }
    public func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try shared { s throws(Rejection) in try s.checkOut(id, by: user, at: now) }
    }
    public func changeAvailability(_ change: AvailabilityChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> [Booking]
    {
        try shared { s throws(Rejection) in try s.changeAvailability(change, onBookings: rule, at: now) }
    }
    public func bookings(of user: UserID, at now: Instant) async throws -> UserBookings {
        shared { $0.bookings(of: user, at: now) }
    }
    public func booking(_ id: BookingID) async throws -> Booking? { shared { $0.booking(id) } }
    public func bookings(at station: StationID, startingIn window: Range<Instant>) async throws -> [Booking] {
        shared { $0.bookings(at: station, startingIn: window) }
    }
    public func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView {
        try shared { s throws(Rejection) in try s.dayView(of: station, on: date, at: now) }
    }
    public func holds(at now: Instant) async throws -> [Hold] { shared { $0.holds(at: now) } }
    public func remindersDue(in window: Range<Instant>) async throws -> [Reminder] {
        shared { $0.remindersDue(in: window) }
    }
    public func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) async throws -> [FreeSlot] {
        shared { $0.earliestFreeSlots(matching: filter, at: now) }
    }
    public func allBookingsByID() async throws -> [Booking] { shared { $0.allBookings } }
}

extension PreparedScenario {
    /// Whether the scenario's check-outs move resources: its workload's ``Workload/leftWithinKm``
    /// or a step's `leftAt`.
    public var movesResources: Bool {
        scenario.workload?.leftWithinKm != nil || (scenario.steps ?? []).contains { $0.leftAt != nil }
    }

    /// The in-memory store threads mode runs this scenario on: a `Scheduler` with `shards`, or,
    /// when its check-outs move resources, a ``RelocatingScheduler`` around one.
    public func memoryStore(shards: Int = 16) -> any BookingService {
        let scheduler = Scheduler(rules: rules, shards: shards)
        return movesResources ? RelocatingScheduler(scheduler) : scheduler
    }
}
