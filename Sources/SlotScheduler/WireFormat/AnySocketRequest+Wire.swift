// The wire format of any-socket requests; see <doc:WireFormat>.

extension AnySocketRequest: Codable {
    enum WireKeys: String, CodingKey {
        case station, connector, minimumPowerKW, date, hour, user, requestID, reminderSeconds
    }

    /// Decodes the wire form: `minimumPowerKW` defaults to 0, the reminder is whole seconds.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            station: try c.decode(StationID.self, forKey: .station),
            connector: try c.decode(ConnectorType.self, forKey: .connector),
            minimumPowerKW: try c.decodeIfPresent(Double.self, forKey: .minimumPowerKW) ?? 0,
            date: try c.decode(LocalDate.self, forKey: .date), hour: try c.decode(Int.self, forKey: .hour),
            user: try c.decode(UserID.self, forKey: .user),
            requestID: try c.decodeIfPresent(RequestID.self, forKey: .requestID),
            reminder: try c.decodeIfPresent(Int64.self, forKey: .reminderSeconds).map { .seconds($0) })
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(station, forKey: .station)
        try c.encode(connector, forKey: .connector)
        try c.encode(minimumPowerKW, forKey: .minimumPowerKW)
        try c.encode(date, forKey: .date)
        try c.encode(hour, forKey: .hour)
        try c.encode(user, forKey: .user)
        try c.encodeIfPresent(requestID, forKey: .requestID)
        try c.encodeIfPresent(reminderSeconds, forKey: .reminderSeconds)
    }
}
