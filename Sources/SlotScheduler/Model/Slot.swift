/// One socket of one station for one local hour on one local date.
public struct Slot: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var station: StationID
    public var socket: SocketID
    /// The date in the station's time zone.
    public var date: LocalDate
    /// The local hour 0–23 the slot starts at.
    public var hour: Int

    public init(station: StationID, socket: SocketID, date: LocalDate, hour: Int) {
        self.station = station
        self.socket = socket
        self.date = date
        self.hour = hour
    }

    public static func < (a: Self, b: Self) -> Bool {
        (a.station, a.socket, a.date, a.hour) < (b.station, b.socket, b.date, b.hour)
    }

    public var description: String {
        "\(station)/\(socket) \(date) \(hour < 10 ? "0" : "")\(hour):00"
    }
}
