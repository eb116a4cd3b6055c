/// What a date/time picker shows for one station on one date: every socket × hour, each free or
/// with the reason it is not.
public struct DayView: Hashable, Codable, Sendable {
    public var station: StationID
    public var date: LocalDate
    public var sockets: [SocketDay]

    public struct SocketDay: Hashable, Codable, Sendable {
        public var socket: SocketID
        public var connector: ConnectorType
        public var powerKW: Double
        /// Exactly 24 entries, for hours 0–23.
        public var hours: [SlotStatus]
    }

    /// The status of one slot, or `nil` for an unknown socket or hour.
    public func status(socket: SocketID, hour: Int) -> SlotStatus? {
        guard (0...23).contains(hour) else { return nil }
        return sockets.first { $0.socket == socket }?.hours[hour]
    }
}

/// Whether a slot can be booked, and if not, why. Checked in the same order as
/// ``Ledger/reserve(_:at:)-(ReservationRequest,_)`` checks, so a ``free`` slot is refused only
/// for the user's own limit.
public enum SlotStatus: String, Hashable, Codable, Sendable, CaseIterable {
    case free
    case nonexistent
    case past
    case tooSoon
    case beyondHorizon
    case closed
    case outsideHours
    case booked
    /// Held by a hold that lives at `now` (see ``Hold``).
    case held

    /// The refusal a reservation of this slot would get.
    public var reason: Rejection.Reason? {
        switch self {
        case .free: nil
        case .nonexistent: .nonexistentLocalTime
        case .past: .slotInPast
        case .tooSoon: .tooSoon
        case .beyondHorizon: .beyondHorizon
        case .closed: .socketClosed
        case .outsideHours: .outsideOpeningHours
        case .booked: .slotTaken
        case .held: .slotHeld
        }
    }
}

extension SlotBook {
    /// The status of `ref` at `now`, without changing anything.
    func status(_ ref: SlotRef, now: Int64, rules: Rules) -> SlotStatus {
        let (reason, _) = rules.checkTime(ref, reminder: nil, now: now)
        switch reason {
        case .nonexistentLocalTime: return .nonexistent
        case .slotInPast: return .past
        case .tooSoon: return .tooSoon
        case .beyondHorizon: return .beyondHorizon
        default: break
        }
        if ref.day < releasedBefore { return .past }
        let local = Int(localSocket[Int(ref.socket)])
        let open = openHours(localSocket: local, day: ref.day)
        if open == 0 { return .closed }
        if open & (1 << UInt32(ref.hour)) == 0 { return .outsideHours }
        if occupant(ref) != nil { return .booked }
        return liveHold(ref, now: now) == nil ? .free : .held
    }

    /// The day view of station `station` (catalog index) on `date`.
    ///
    /// - Complexity: O(sockets × 24).
    func dayView(station: Int32, date: LocalDate, now: Int64, rules: Rules) -> DayView {
        let info = rules.catalog.station(at: station)
        let sockets = info.sockets.enumerated().map { index, socket in
            DayView.SocketDay(
                socket: socket.id, connector: socket.connector, powerKW: socket.powerKW,
                hours: (0..<24).map { hour in
                    status(
                        SlotRef(
                            station: station, socket: rules.catalog.socket(ofStation: station, at: index),
                            day: date.dayNumber, hour: Int32(hour)),
                        now: now, rules: rules)
                })
        }
        return DayView(station: info.id, date: date, sockets: sockets)
    }
}
