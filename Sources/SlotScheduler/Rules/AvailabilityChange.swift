/// A change to the hours a socket (or a whole station) is open on one date.
///
/// Closing a socket-date that has bookings never drops them silently: see
/// ``DisplacementRule``.
public struct AvailabilityChange: Hashable, Codable, Sendable, CustomStringConvertible {
    public var station: StationID
    /// The socket affected, or `nil` for every socket of the station.
    public var socket: SocketID?
    public var date: LocalDate
    /// The hours open on that date; `nil` restores the regular hours.
    public var hours: HourSet?

    public init(station: StationID, socket: SocketID?, date: LocalDate, hours: HourSet?) {
        self.station = station
        self.socket = socket
        self.date = date
        self.hours = hours
    }

    /// Closes the socket (or the whole station when `socket` is `nil`) for the whole date.
    public static func close(_ station: StationID, socket: SocketID?, on date: LocalDate) -> Self {
        Self(station: station, socket: socket, date: date, hours: .closed)
    }
    /// Restores the regular hours on that date.
    public static func reopen(_ station: StationID, socket: SocketID?, on date: LocalDate) -> Self {
        Self(station: station, socket: socket, date: date, hours: nil)
    }
    /// Opens only `hours` on that date.
    public static func setHours(_ hours: HourSet, _ station: StationID, socket: SocketID?, on date: LocalDate) -> Self {
        Self(station: station, socket: socket, date: date, hours: hours)
    }

    public var description: String {
        let target = socket.map { "\(station)/\($0)" } ?? "\(station)/*"
        let what = hours.map { $0.isEmpty ? "closed" : "hours \($0)" } ?? "regular hours"
        return "\(target) \(date): \(what)"
    }
}

/// What an availability change does with bookings in hours it closes.
public enum DisplacementRule: String, Hashable, Codable, Sendable, CaseIterable {
    /// Cancel them, mark them ``Booking/Status-swift.enum/displaced``, emit a
    /// ``Event/displaced(_:user:at:)`` for each, and return them to the caller. The default.
    case displace
    /// Refuse the whole change with ``Rejection/Reason/slotHasBookings``; nothing changes.
    case refuse

    public init(from decoder: any Decoder) throws { self = try decoder.decodeName() }
}
