/// A state change. Replaying a ledger's events onto an empty ledger with the same rules rebuilds
/// the identical state (``Ledger/init(rules:replaying:journaling:)``).
public enum Event: Hashable, Codable, Sendable {
    /// A booking was made (as it was when made).
    case reserved(Booking)
    /// Its owner cancelled a booking.
    case cancelled(BookingID, user: UserID, at: Instant)
    /// A socket's (or station's) hours on a date changed.
    case availabilityChanged(AvailabilityChange, at: Instant)
    /// A booking lost its slot to the availability change just before it.
    case displaced(BookingID, user: UserID, at: Instant)
    /// Its owner moved a booking to another slot of its station, in one step.
    case rescheduled(BookingMove, at: Instant)
    /// A user held a slot (see ``Hold``); its `createdAt` is the `now` of the hold.
    case held(Hold)
    /// A user confirmed their hold: the booking it made, as made.
    case holdConfirmed(Booking)
    /// A user released their hold of a slot.
    case holdReleased(Slot, user: UserID, at: Instant)
    /// Its owner checked a booking in (see ``Ledger/checkIn(_:by:accessCode:at:)``).
    case checkedIn(BookingID, user: UserID, at: Instant)
    /// Its owner checked a checked-in booking out, ending its session (see
    /// ``Ledger/checkOut(_:by:at:)``): the booking is fulfilled, its slot freed.
    case checkedOut(BookingID, user: UserID, at: Instant)
    /// A new station list went into service (``Catalog/changed(to:)``); the bookings it displaced
    /// follow as ``displaced(_:user:at:)``. A hold on a slot it closed is dropped with it.
    case catalogChanged(CatalogChange, at: Instant)

    /// The booking a `reserved` or `holdConfirmed` event made.
    var madeBooking: Booking? {
        switch self {
        case .reserved(let booking), .holdConfirmed(let booking): booking
        default: nil
        }
    }
}

/// Why a journal or snapshot could not be replayed.
public struct ReplayError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Index of the offending event or snapshot booking.
    public var index: Int
    public var problem: String
    public var description: String { "event \(index): \(problem)" }
}

extension SlotBook {
    func booking(record index: Int, catalog: Catalog, asCreated: Bool = false) -> Booking {
        var r = records[index]
        if asCreated, !firstMove.isEmpty, let m = firstMove[Int32(truncatingIfNeeded: index)] {
            (r.ref, r.start) = (moves[Int(m)].from, moves[Int(m)].fromStart)
        }
        var booking = Booking(
            id: bookingID(record: index), slot: catalog.slot(r.ref), user: r.user, start: Instant(r.start),
            createdAt: Instant(r.createdAt), requestID: requestIDs[Int32(index)],
            reminderOffsetSeconds: r.reminder < 0 ? nil : Int64(r.reminder), status: asCreated ? .active : r.status)
        if !asCreated, !checkIns.isEmpty { booking.checkedInAt = checkIns[Int32(index)].map { Instant($0) } }
        if !asCreated, !checkOuts.isEmpty { booking.checkedOutAt = checkOuts[Int32(index)].map { Instant($0) } }
        return booking
    }

    func event(_ entry: JournalEntry, catalog: Catalog) -> Event {
        let index = Int(entry.reference)
        switch entry.kind {
        case .reserved: return .reserved(booking(record: index, catalog: catalog, asCreated: true))
        case .cancelled: return .cancelled(bookingID(record: index), user: records[index].user, at: Instant(entry.at))
        case .displaced: return .displaced(bookingID(record: index), user: records[index].user, at: Instant(entry.at))
        case .availabilityChanged: return .availabilityChanged(changes[index], at: Instant(entry.at))
        case .rescheduled:
            let move = moves[index]
            let record = Int(move.record)
            return .rescheduled(
                BookingMove(
                    booking: bookingID(record: record), user: records[record].user, from: catalog.slot(move.from),
                    to: catalog.slot(move.to), start: Instant(move.toStart), requestID: move.requestID),
                at: Instant(entry.at))
        case .held: return .held(hold(index, catalog: catalog))
        case .holdConfirmed: return .holdConfirmed(booking(record: index, catalog: catalog, asCreated: true))
        case .holdReleased:
            return .holdReleased(catalog.slot(holds[index].ref), user: holds[index].user, at: Instant(entry.at))
        case .checkedIn: return .checkedIn(bookingID(record: index), user: records[index].user, at: Instant(entry.at))
        case .checkedOut:
            return .checkedOut(bookingID(record: index), user: records[index].user, at: Instant(entry.at))
        }
    }

    /// Availability that differs from the regular hours, sorted by station, socket and date.
    func overrides(catalog: Catalog) -> [AvailabilityChange] {
        var result: [AvailabilityChange] = []
        for (station, info) in catalog.layout.enumerated() where owns(station: station) {
            for (s, socket) in info.sockets.enumerated() {
                let local = Int(localSocket[Int(catalog.socketsOfStation[station][s])])
                for (i, block) in dayBlock.enumerated() where block >= 0 {
                    let day = firstDay + Int32(i)
                    let open = openHours(localSocket: local, day: day)
                    guard open != regular[local] else { continue }
                    result.append(
                        AvailabilityChange(
                            station: info.id, socket: socket.id, date: LocalDate(dayNumber: day),
                            hours: HourSet(mask: open)))
                }
            }
        }
        return result
    }
}
