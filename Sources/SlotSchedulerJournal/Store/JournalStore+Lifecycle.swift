import SlotScheduler

/// Holds, reschedules and any-socket bookings: each runs on the scheduler under the store's lock
/// and returns only once its record (one event: tags 5 to 8, or 1 for an any-socket booking) is
/// durable, like ``JournalStore/book(_:at:)``. A call that changes nothing (a refusal, a repeated
/// confirm, a replayed request id) writes nothing and waits for what it could have seen.
extension JournalStore {
    /// Books the first free matching socket, as `Scheduler.book(_:at:)`;
    /// journalled as the booking it made (`Event.reserved(_:)`).
    public func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        try await apply(.reserveAnySocket(request), at: now).reservation()
    }

    /// Books the first free matching socket, as ``book(_:at:)-(AnySocketRequest,_)``.
    public func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        try await book(request, at: now).booking
    }

    /// Holds a slot, as `Scheduler.hold(_:for:reminder:at:)`; returns once the hold is durable.
    public func hold(_ slot: Slot, for user: UserID, reminder: Duration? = nil, at now: Instant) async throws -> Hold {
        try await apply(.hold(slot, user: user, reminder: reminder), at: now).hold()
    }

    /// Confirms a hold, as `Scheduler.confirm(_:by:at:)`; returns once the booking is durable.
    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        try await apply(.confirm(slot, user: user), at: now).booking()
    }

    /// Releases a hold, as `Scheduler.releaseHold(_:by:at:)`; returns once the release is durable.
    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        try await apply(.releaseHold(slot, user: user), at: now).hold()
    }

    /// Moves a booking, as `Scheduler.reschedule(_:at:)`; returns once the move is durable,
    /// journalled as one `Event.rescheduled(_:at:)`. A replayed request id writes nothing.
    public func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        try await apply(.reschedule(request), at: now).reservation()
    }

    /// The holds that live at `now`, as `Scheduler.holds(at:)`; returns once everything it
    /// could have seen is durable.
    public func holds(at now: Instant) async throws -> [Hold] {
        try await command { scheduler, _ in (.success(scheduler.holds(at: now)), []) }
    }
}
