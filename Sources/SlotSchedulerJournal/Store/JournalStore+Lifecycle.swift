import SlotScheduler

/// Holds, reschedules and any-socket bookings: each runs on the scheduler under the store's lock
/// and returns only once its record (one event: tags 5 to 8, or 1 for an any-socket booking) is
/// durable, like ``JournalStore/book(_:at:)``. A call that changes nothing (a refusal, a repeated
/// confirm, a replayed request id) writes nothing and waits for what it could have seen.
extension JournalStore {
    /// Books the first free matching socket, as `Scheduler.book(_:at:)`;
    /// journalled as the booking it made (`Event.reserved(_:)`).
    public func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        try await command(at: now) { scheduler, _ in
            do throws(Rejection) {
                let reservation = try scheduler.book(request, at: now)
                return (.success(reservation), reservation.isReplay ? [] : [.reserved(reservation.booking)])
            } catch { return (.failure(error), []) }
        }
    }

    /// Books the first free matching socket, as ``book(_:at:)-(AnySocketRequest,_)``.
    public func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        try await book(request, at: now).booking
    }

    /// Holds a slot, as `Scheduler.hold(_:for:reminder:at:)`; returns once the hold is durable.
    public func hold(_ slot: Slot, for user: UserID, reminder: Duration? = nil, at now: Instant) async throws -> Hold {
        try await command(at: now) { scheduler, _ in
            do throws(Rejection) {
                let hold = try scheduler.hold(slot, for: user, reminder: reminder, at: now)
                return (.success(hold), [.held(hold)])
            } catch { return (.failure(error), []) }
        }
    }

    /// Confirms a hold, as `Scheduler.confirm(_:by:at:)`; returns once the booking is durable.
    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        try await command(at: now) { scheduler, _ in
            do throws(Rejection) {
                let made = try scheduler.confirmation(slot, by: user, at: now)
                return (.success(made.booking), made.isReplay ? [] : [.holdConfirmed(made.booking)])
            } catch { return (.failure(error), []) }
        }
    }

    /// Releases a hold, as `Scheduler.releaseHold(_:by:at:)`; returns once the release is durable.
    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        try await command(at: now) { scheduler, _ in
            do throws(Rejection) {
                let hold = try scheduler.releaseHold(slot, by: user, at: now)
                return (.success(hold), [.holdReleased(hold.slot, user: user, at: now)])
            } catch { return (.failure(error), []) }
        }
    }

    /// Moves a booking, as `Scheduler.reschedule(_:at:)`; returns once the move is durable,
    /// journalled as one `Event.rescheduled(_:at:)`. A replayed request id writes nothing.
    public func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        try await command(at: now) { scheduler, _ in
            // Commands run under the store's lock, so the booking does not move between these.
            let before = scheduler.booking(request.booking)
            do throws(Rejection) {
                let moved = try scheduler.reschedule(request, at: now)
                guard !moved.isReplay, let before else { return (.success(moved), []) }
                let move = BookingMove(
                    booking: moved.booking.id, user: moved.booking.user, from: before.slot, to: moved.booking.slot,
                    start: moved.booking.start, requestID: request.requestID)
                return (.success(moved), [.rescheduled(move, at: now)])
            } catch { return (.failure(error), []) }
        }
    }

    /// The holds that live at `now`, as `Scheduler.holds(at:)`; returns once everything it
    /// could have seen is durable.
    public func holds(at now: Instant) async throws -> [Hold] {
        try await command { scheduler, _ in (.success(scheduler.holds(at: now)), []) }
    }
}
