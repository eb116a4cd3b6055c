import SlotScheduler
import Synchronization

/// Holds one store call until the test lets it go, so a test can run another call meanwhile.
final class Gate: Sendable {
    private struct State {
        var armed = false
        var entered = false
        var waiter: CheckedContinuation<Void, Never>?
        var released = false
    }
    private let state = Mutex(State())

    /// The next call that passes ``pass()`` waits there until ``release()``.
    func arm() { state.withLock { $0.armed = true } }

    var entered: Bool { state.withLock { $0.entered } }

    func pass() async {
        let wait = state.withLock { s -> Bool in
            guard s.armed else { return false }
            s.armed = false
            s.entered = true
            return !s.released
        }
        guard wait else { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { s -> Bool in
                if s.released { return true }
                s.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func release() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.released = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }
}

/// A `Scheduler` behind calls that suspend first, as a database's would (and, for an availability
/// change, wait at ``gate`` when it is armed): other calls of the bridge can come in meanwhile.
struct YieldingService: BookingService {
    let inner: Scheduler
    var gate = Gate()
    var rules: Rules { inner.rules }

    private func pause() async {
        for _ in 0..<3 { await Task.yield() }
    }

    func changeCatalog(_ change: CatalogChange, onBookings rule: DisplacementRule, at now: Instant) async throws
        -> CatalogChangeResult
    {
        await pause()
        return try await inner.changeCatalog(change, onBookings: rule, at: now)
    }

    func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation {
        await pause()
        return try inner.book(request, at: now)
    }
    func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        await pause()
        return try inner.reserve(request, at: now)
    }
    func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        await pause()
        return try inner.book(request, at: now)
    }
    func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        await pause()
        return try inner.reserve(request, at: now)
    }
    func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold {
        await pause()
        return try inner.hold(slot, for: user, reminder: reminder, at: now)
    }
    func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        await pause()
        return try inner.confirm(slot, by: user, at: now)
    }
    func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        await pause()
        return try inner.releaseHold(slot, by: user, at: now)
    }
    func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        await pause()
        return try inner.reschedule(request, at: now)
    }
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        await pause()
        return try inner.cancel(id, by: user, at: now)
    }
    func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws -> Booking {
        await pause()
        return try inner.checkIn(id, by: user, accessCode: accessCode, at: now)
    }
    func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        await pause()
        return try inner.checkOut(id, by: user, at: now)
    }
    func changeAvailability(_ change: AvailabilityChange, onBookings rule: DisplacementRule, at now: Instant)
        async throws -> [Booking]
    {
        await pause()
        await gate.pass()
        return try inner.changeAvailability(change, onBookings: rule, at: now)
    }
    func bookings(of user: UserID, at now: Instant) async throws -> UserBookings {
        await pause()
        return inner.bookings(of: user, at: now)
    }
    func booking(_ id: BookingID) async throws -> Booking? {
        await pause()
        return inner.booking(id)
    }
    func bookings(at station: StationID, startingIn window: Range<Instant>) async throws -> [Booking] {
        await pause()
        return inner.bookings(at: station, startingIn: window)
    }
    func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView {
        await pause()
        return try inner.dayView(of: station, on: date, at: now)
    }
    func holds(at now: Instant) async throws -> [Hold] {
        await pause()
        return inner.holds(at: now)
    }
    func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) async throws -> [FreeSlot] {
        await pause()
        return inner.earliestFreeSlots(matching: filter, at: now)
    }
    func remindersDue(in window: Range<Instant>) async throws -> [Reminder] {
        await pause()
        return inner.remindersDue(in: window)
    }
    func allBookingsByID() async throws -> [Booking] {
        await pause()
        return inner.allBookings
    }
}
