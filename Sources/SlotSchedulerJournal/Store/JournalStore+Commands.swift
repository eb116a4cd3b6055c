import SlotScheduler
import Synchronization

extension JournalStore {
    /// Runs `body` on the scheduler under the store's lock, journals the events it returns, and
    /// waits until they, and everything the body could have seen, are durable.
    ///
    /// A command that changes something passes its `now`: when it takes the journal past the
    /// ``Checkpoints`` thresholds, its caller runs the automatic checkpoint after its own
    /// record is durable (so that caller waits for the snapshot too).
    func command<T: Sendable>(
        at now: Instant? = nil, _ body: (Scheduler, inout State) -> (Result<T, Rejection>, [Event])
    ) async throws -> T {
        let (result, target, runsCheckpoint) = try state.withLock { s throws(JournalError) in
            try s.checkUsable(files.path)
            let (result, events) = body(s.scheduler, &s)
            s.append(events)
            let due = now != nil && !s.checkpointClaimed && (s.catalogChanged || checkpoints.isDue(s))
            if due { s.checkpointClaimed = true }
            return (result, s.appended, due)
        }
        try await waitDurable(target)
        if runsCheckpoint, let now { await automaticCheckpoint(at: now) }
        return try result.get()
    }

    /// Applies one command, as `Scheduler.apply(_:at:)`, and returns once the events it
    /// journalled (`Outcome.events(at:)`) are durable. An outcome that changed nothing (a
    /// refusal, a replayed request id, a repeated confirm or check-in) writes nothing and returns
    /// once everything it could have seen is durable. The named commands below wrap it.
    public func apply(_ command: Command, at now: Instant) async throws -> Outcome {
        guard case .changeCatalog(let change, let rule) = command else {
            return try await self.command(at: now) { scheduler, _ in
                let outcome = scheduler.apply(command, at: now)
                return (.success(outcome), outcome.events(at: now))
            }
        }
        return try await changingCatalog(onBookings: rule, at: now) { _ throws(Rejection) in change }
    }

    /// A catalog change built by `change` from the catalog in service under the store's lock,
    /// applied there (the scheduler rebuilt) and journaled.
    func changingCatalog(
        onBookings rule: DisplacementRule, at now: Instant,
        _ change: @escaping @Sendable (Catalog) throws(Rejection) -> CatalogChange
    ) async throws -> Outcome {
        try await command(at: now) { scheduler, s in
            let outcome: Outcome
            do throws(Rejection) {
                let (next, changed) = scheduler.changingCatalog(
                    try change(scheduler.rules.catalog), onBookings: rule, at: now)
                if case .catalogChanged = changed {
                    s.scheduler = next
                    s.catalogChanged = true
                }
                outcome = changed
            } catch { outcome = .refused(error) }
            return (.success(outcome), outcome.events(at: now))
        }
    }

    /// Books a slot, as ``book(_:at:)-(ReservationRequest,_)``.
    public func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        try await book(request, at: now).booking
    }

    /// Books a slot, as `Scheduler.book(_:at:)`; returns once the booking is durable. A replay
    /// of an earlier request id writes nothing, and returns once the booking it repeats is durable.
    public func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation {
        try await apply(.reserve(request), at: now).reservation()
    }

    /// Cancels a booking, as `Scheduler.cancel(_:by:at:)`; returns once the cancellation is durable.
    public func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await apply(.cancel(id, user: user), at: now).booking()
    }

    /// Checks a booking in, as `Scheduler.checkIn(_:by:accessCode:at:)`; returns once the
    /// check-in is durable. A repeat (the booking was checked in already) writes nothing.
    public func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws
        -> Booking
    {
        try await apply(.checkIn(id, user: user, accessCode: accessCode), at: now).booking()
    }

    /// Checks a booking out, as `Scheduler.checkOut(_:by:at:)`; returns once the check-out is
    /// durable.
    public func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        try await apply(.checkOut(id, user: user), at: now).booking()
    }

    /// Puts a new station list in service, as `Ledger.changeCatalog(_:onBookings:at:)`, and
    /// returns once the change and its displacements are durable and a snapshot holds the new
    /// catalog: the directory then reopens with it, whatever catalog it is opened with.
    @discardableResult
    public func changeCatalog(
        _ change: CatalogChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) async throws -> CatalogChangeResult {
        try await apply(.changeCatalog(change, onBookings: rule), at: now).catalogChange()
    }

    /// Moves a station to `place`, as `Ledger.relocate(_:to:at:)`: the change is built under the
    /// store's lock from the catalog in service then, so relocations at once never undo one
    /// another; returns once it is durable, as ``changeCatalog(_:onBookings:at:)``.
    @discardableResult
    public func relocate(_ station: StationID, to place: Coordinate, at now: Instant) async throws
        -> CatalogChangeResult
    {
        try await changingCatalog(onBookings: .refuse, at: now) { catalog throws(Rejection) in
            try catalog.relocating(station, to: place)
        }.catalogChange()
    }

    /// Changes availability, as `Scheduler.changeAvailability(_:onBookings:at:)`; returns the
    /// displaced bookings once the change and the displacements are durable.
    public func changeAvailability(
        _ change: AvailabilityChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) async throws -> [Booking] {
        try await apply(.changeAvailability(change, onBookings: rule), at: now).displaced()
    }

    /// The booking with `id` in its current status, as `Scheduler.booking(_:)`; returns once
    /// everything it could have seen is durable.
    public func booking(_ id: BookingID) async throws -> Booking? {
        try await command { scheduler, _ in (.success(scheduler.booking(id)), []) }
    }

    /// The active bookings of `station` starting in `window`, as
    /// `Scheduler.bookings(at:startingIn:)`; returns once everything it could have seen is durable.
    public func bookings(at station: StationID, startingIn window: Range<Instant>) async throws -> [Booking] {
        try await command { scheduler, _ in (.success(scheduler.bookings(at: station, startingIn: window)), []) }
    }

    /// What `id` names, as `Scheduler.lookup(_:)`: held, released (by a checkpoint with
    /// retention), or unknown; returns once everything it could have seen is durable.
    public func lookup(_ id: BookingID) async throws -> BookingLookup {
        try await command { scheduler, _ in (.success(scheduler.lookup(id)), []) }
    }

    public func bookings(of user: UserID, at now: Instant) async throws -> UserBookings {
        try await command { scheduler, _ in (.success(scheduler.bookings(of: user, at: now)), []) }
    }

    public func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView {
        try await command { scheduler, _ in
            do throws(Rejection) {
                return (.success(try scheduler.dayView(of: station, on: date, at: now)), [])
            } catch { return (.failure(error), []) }
        }
    }

    public func remindersDue(in window: Range<Instant>) async throws -> [Reminder] {
        try await command { scheduler, _ in (.success(scheduler.remindersDue(in: window)), []) }
    }

    public func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) async throws -> [FreeSlot] {
        try await command { scheduler, _ in (.success(scheduler.earliestFreeSlots(matching: filter, at: now)), []) }
    }

    public func allBookingsByID() async throws -> [Booking] {
        try await command { scheduler, _ in (.success(scheduler.allBookings), []) }
    }
}
