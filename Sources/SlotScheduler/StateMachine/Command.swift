/// One change to the books, as a value. Every face sends its changes as commands to the one
/// `apply` (``Ledger/apply(_:at:)``, ``Scheduler/apply(_:at:)``, and the stores' own, which call
/// the scheduler's), and gets one ``Outcome`` back; the named methods (``Ledger/reserve(_:at:)-(ReservationRequest,_)``,
/// ``Ledger/cancel(_:by:at:)``, …) are thin wrappers that build a command and unwrap its outcome.
///
/// A command later added (a catalog change, a check-out) is one more case here, one more in
/// ``Outcome``, and one more branch of the apply: every face, store and checker then has it.
public enum Command: Hashable, Sendable {
    /// Book one slot for one user; see ``Ledger/book(_:at:)-(ReservationRequest,_)``.
    case reserve(ReservationRequest)
    /// Book the first free matching socket of a station; see ``Ledger/book(_:at:)-(AnySocketRequest,_)``.
    case reserveAnySocket(AnySocketRequest)
    /// Hold a slot for a user; see ``Ledger/hold(_:for:reminder:at:)``.
    case hold(Slot, user: UserID, reminder: Duration? = nil)
    /// Turn the user's hold of a slot into a booking; see ``Ledger/confirm(_:by:at:)``.
    case confirm(Slot, user: UserID)
    /// Release the user's hold of a slot; see ``Ledger/releaseHold(_:by:at:)``.
    case releaseHold(Slot, user: UserID)
    /// Move a booking to another slot of its station; see ``Ledger/reschedule(_:at:)``.
    case reschedule(RescheduleRequest)
    /// Cancel a booking, by its owner; see ``Ledger/cancel(_:by:at:)``.
    case cancel(BookingID, user: UserID)
    /// Check a booking in, by its owner, presenting its socket's code when it has one
    /// (``Socket/accessCode``); see ``Ledger/checkIn(_:by:accessCode:at:)``.
    case checkIn(BookingID, user: UserID, accessCode: String? = nil)
    /// End a checked-in booking's session, by its owner; see ``Ledger/checkOut(_:by:at:)``.
    case checkOut(BookingID, user: UserID)
    /// Change a socket's (or a station's) hours on a date; see
    /// ``Ledger/changeAvailability(_:onBookings:at:)``.
    case changeAvailability(AvailabilityChange, onBookings: DisplacementRule = .displace)
    /// Put a new station list in service; see ``Ledger/changeCatalog(_:onBookings:at:)``.
    case changeCatalog(CatalogChange, onBookings: DisplacementRule = .displace)
}

/// A ``Command`` with its names resolved against the catalog: what the apply decides on. Resolving
/// reads no state, so a face resolves before it takes any lock, and a command that names nothing
/// of the catalog is refused before it is applied.
enum ResolvedCommand: Sendable {
    case reserve(ResolvedRequest)
    case reserveAnySocket(ResolvedAnySocket)
    case hold(SlotRef, user: UserID, reminder: Int64?)
    case confirm(SlotRef, user: UserID)
    case releaseHold(SlotRef, user: UserID)
    case reschedule(ResolvedReschedule, slot: Slot)
    case cancel(BookingID, user: UserID)
    case checkIn(BookingID, user: UserID, accessCode: String?)
    case checkOut(BookingID, user: UserID)
    /// `station` is the station's catalog index.
    case changeAvailability(AvailabilityChange, rule: DisplacementRule, station: Int32)

    /// Where the command applies, which is what a face locks: a slot and its user, a booking and
    /// the caller, or a station.
    enum Place {
        case slot(SlotRef, user: UserID)
        case booking(BookingID, user: UserID)
        case station(Int32)
    }

    var place: Place {
        switch self {
        case .reserve(let r): .slot(r.ref, user: r.user)
        case .reserveAnySocket(let r): .slot(r.candidates[0], user: r.user)
        case .hold(let ref, let user, _), .confirm(let ref, let user), .releaseHold(let ref, let user):
            .slot(ref, user: user)
        case .reschedule(let r, _): .booking(r.booking, user: r.user)
        case .cancel(let id, let user), .checkIn(let id, let user, _), .checkOut(let id, let user):
            .booking(id, user: user)
        case .changeAvailability(_, _, let station): .station(station)
        }
    }

    /// The refusal of a command on a booking that no book holds.
    var unknownBooking: Rejection {
        switch self {
        case .reschedule(let r, let slot): r.unknownBooking(slot: slot)
        case .cancel(let id, let user), .checkIn(let id, let user, _), .checkOut(let id, let user):
            Rejection(.unknownBooking, booking: id, user: user)
        default: preconditionFailure("only a command on a booking names one")
        }
    }
}

extension Rules {
    /// Resolves a command's names against the catalog, or throws why it names nothing bookable.
    func resolve(_ command: Command) throws(Rejection) -> ResolvedCommand {
        switch command {
        case .reserve(let request): return .reserve(try resolved(request))
        case .reserveAnySocket(let request): return .reserveAnySocket(try resolved(request))
        case .hold(let slot, let user, let reminder):
            return .hold(try catalog.resolve(slot), user: user, reminder: reminder.map { $0.components.seconds })
        case .confirm(let slot, let user): return .confirm(try catalog.resolve(slot), user: user)
        case .releaseHold(let slot, let user): return .releaseHold(try catalog.resolve(slot), user: user)
        case .reschedule(let request): return .reschedule(try resolved(request), slot: request.slot)
        case .cancel(let id, let user): return .cancel(id, user: user)
        case .checkIn(let id, let user, let code): return .checkIn(id, user: user, accessCode: code)
        case .checkOut(let id, let user): return .checkOut(id, user: user)
        case .changeAvailability(let change, let rule):
            return .changeAvailability(
                change, rule: rule, station: try catalog.index(of: change.station, on: change.date))
        case .changeCatalog:
            // Not a change of the books but of the rules: the faces rebuild (`CatalogRevision`).
            throw Rejection(.catalogFixed)
        }
    }
}
