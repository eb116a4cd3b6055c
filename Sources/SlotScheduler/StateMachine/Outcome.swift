/// What applying a ``Command`` gave: one value for every command, with the events it journals
/// (``events(at:)``). A refusal is an outcome too (``refused(_:)``): it changes nothing and
/// journals nothing.
public enum Outcome: Hashable, Sendable {
    /// A reservation or an any-socket booking: the booking made, or the one an earlier request
    /// with the same request id made (``Reservation/isReplay``).
    case booked(Reservation)
    /// A hold made.
    case held(Hold)
    /// A hold confirmed: the booking it made (a replay when an earlier confirm made it).
    case confirmed(Reservation)
    /// A hold released.
    case holdReleased(Hold)
    /// A booking moved: `move` is what the journal records, `nil` for a replayed request id.
    case rescheduled(Reservation, move: BookingMove?)
    /// A booking cancelled.
    case cancelled(Booking)
    /// A booking checked in; `isRepeat` when it already was (nothing changed).
    case checkedIn(Booking, isRepeat: Bool)
    /// A booking checked out: fulfilled, its slot freed.
    case checkedOut(Booking)
    /// Availability changed, displacing `displaced` (sorted by socket, then hour).
    case availabilityChanged(AvailabilityChange, displaced: [Booking])
    /// A new station list in service: what it changed and displaced.
    case catalogChanged(CatalogChangeResult)
    /// Refused: nothing changed.
    case refused(Rejection)

    /// The events the command journalled at `now`, in journal order: what a store makes durable.
    /// Empty for a refusal and for an outcome that changed nothing (a replay, a repeat).
    public func events(at now: Instant) -> [Event] {
        switch self {
        case .booked(let r): r.isReplay ? [] : [.reserved(r.booking)]
        case .held(let hold): [.held(hold)]
        case .confirmed(let r): r.isReplay ? [] : [.holdConfirmed(r.booking)]
        case .holdReleased(let hold): [.holdReleased(hold.slot, user: hold.user, at: now)]
        case .rescheduled(_, let move): move.map { [.rescheduled($0, at: now)] } ?? []
        case .cancelled(let booking): [.cancelled(booking.id, user: booking.user, at: now)]
        case .checkedIn(let booking, let isRepeat):
            isRepeat ? [] : [.checkedIn(booking.id, user: booking.user, at: now)]
        case .checkedOut(let booking): [.checkedOut(booking.id, user: booking.user, at: now)]
        case .availabilityChanged(let change, let displaced):
            [.availabilityChanged(change, at: now)] + displaced.map { .displaced($0.id, user: $0.user, at: now) }
        case .catalogChanged(let r):
            [.catalogChanged(r.change, at: now)] + r.displaced.map { .displaced($0.id, user: $0.user, at: now) }
        case .refused: []
        }
    }

    /// The refusal, if the command was refused.
    public var rejection: Rejection? {
        if case .refused(let rejection) = self { return rejection }
        return nil
    }
}

/// Unwrapping an outcome into what a named method returns: one place for every face's wrappers
/// (this package's stores among them). An outcome of another kind than its command gives is a bug
/// in the apply, so these stop the program; callers outside the package `switch` over the outcome.
extension Outcome {
    /// The reservation of a reservation, an any-socket booking, a confirm or a reschedule.
    package func reservation() throws(Rejection) -> Reservation {
        switch self {
        case .booked(let r), .confirmed(let r), .rescheduled(let r, _): return r
        case .refused(let rejection): throw rejection
        default: preconditionFailure("\(self) is not a reservation's outcome")
        }
    }

    /// The booking of an outcome that names one: a reservation's, a confirm's, a reschedule's, a
    /// cancel's, a check-in's or a check-out's.
    package func booking() throws(Rejection) -> Booking {
        switch self {
        case .cancelled(let booking), .checkedIn(let booking, _), .checkedOut(let booking): return booking
        case .refused(let rejection): throw rejection
        case .booked(let r), .confirmed(let r), .rescheduled(let r, _): return r.booking
        default: preconditionFailure("\(self) names no booking")
        }
    }

    /// The hold of a hold or a release.
    package func hold() throws(Rejection) -> Hold {
        switch self {
        case .held(let hold), .holdReleased(let hold): return hold
        case .refused(let rejection): throw rejection
        default: preconditionFailure("\(self) is not a hold's outcome")
        }
    }

    /// What a catalog change (a relocation among them) did.
    package func catalogChange() throws(Rejection) -> CatalogChangeResult {
        switch self {
        case .catalogChanged(let result): return result
        case .refused(let rejection): throw rejection
        default: preconditionFailure("\(self) is not a catalog change's outcome")
        }
    }

    /// The bookings an availability change (or a catalog change) displaced.
    package func displaced() throws(Rejection) -> [Booking] {
        switch self {
        case .availabilityChanged(_, let displaced): return displaced
        case .catalogChanged(let result): return result.displaced
        case .refused(let rejection): throw rejection
        default: preconditionFailure("\(self) is not an availability change's outcome")
        }
    }
}
