/// A request to book *any* free socket of a station that has a connector and at least a power,
/// at one local hour: the scheduler picks the socket (OCPP `ReserveNow` with connector 0, an
/// OCPI booking whose connector is `#NA`).
///
/// The pick is deterministic: the first free matching socket in the station's catalog order
/// (the order of ``Station/sockets``).
public struct AnySocketRequest: Hashable, Sendable {
    public var station: StationID
    /// The connector every candidate socket must have, compared as ``ConnectorType/normalized``.
    public var connector: ConnectorType
    /// Candidate sockets give at least this many kilowatts.
    public var minimumPowerKW: Double
    /// The date in the station's time zone.
    public var date: LocalDate
    /// The local hour 0–23.
    public var hour: Int
    public var user: UserID
    /// Idempotency key; see ``RequestID``.
    public var requestID: RequestID?
    /// Ask for a reminder this long before the start.
    public var reminder: Duration?

    public init(
        station: StationID, connector: ConnectorType, minimumPowerKW: Double = 0, date: LocalDate, hour: Int,
        user: UserID, requestID: RequestID? = nil, reminder: Duration? = nil
    ) {
        self.station = station
        self.connector = connector
        self.minimumPowerKW = minimumPowerKW
        self.date = date
        self.hour = hour
        self.user = user
        self.requestID = requestID
        self.reminder = reminder
    }

    var reminderSeconds: Int64? { reminder.map { $0.components.seconds } }

    /// Whether `socket` is a candidate for this request.
    /// - Complexity: O(*n*) in the lengths of the two connector names.
    public func matches(_ socket: Socket) -> Bool { matches(socket, connector: connector.normalized) }

    /// ``matches(_:)`` given this request's ``connector`` already normalized: a search through a
    /// station's sockets normalizes it once, not once per socket (whose cost is the name's length).
    func matches(_ socket: Socket, connector normalized: String) -> Bool {
        socket.connector.normalized == normalized && socket.powerKW >= minimumPowerKW
    }

    /// What the request asks for, as a refusal's `value`: `CCS ≥ 50 kW`.
    var criteria: String {
        let power =
            minimumPowerKW.rounded() == minimumPowerKW && abs(minimumPowerKW) < 1e15
            ? String(Int64(minimumPowerKW)) : String(minimumPowerKW)
        return "\(connector) ≥ \(power) kW"
    }
}
