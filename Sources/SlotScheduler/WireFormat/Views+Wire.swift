// The wire format of day views and station pages; see <doc:WireFormat>.

extension DayView {
    enum WireKeys: String, CodingKey { case station, date, sockets }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            station: try c.decode(StationID.self, forKey: .station), date: try c.decode(LocalDate.self, forKey: .date),
            sockets: try c.decode([SocketDay].self, forKey: .sockets))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(station, forKey: .station)
        try c.encode(date, forKey: .date)
        try c.encode(sockets, forKey: .sockets)
    }
}

extension DayView.SocketDay {
    enum WireKeys: String, CodingKey { case socket, connector, powerKW, hours }

    /// Decodes one socket's row; `hours` must hold exactly 24 statuses.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let hours = try c.decode([SlotStatus].self, forKey: .hours)
        guard hours.count == 24 else {
            throw DecodingError.dataCorruptedError(
                forKey: .hours, in: c, debugDescription: "\(hours.count) hours; expected 24")
        }
        self.init(
            socket: try c.decode(SocketID.self, forKey: .socket),
            connector: try c.decode(ConnectorType.self, forKey: .connector),
            powerKW: try c.decode(Double.self, forKey: .powerKW), hours: hours)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(socket, forKey: .socket)
        try c.encode(connector, forKey: .connector)
        try c.encode(powerKW, forKey: .powerKW)
        try c.encode(hours, forKey: .hours)
    }
}

extension StationPage {
    enum WireKeys: String, CodingKey { case stations, page, pageSize, totalCount, hasMore }

    /// Decodes a page; `hasMore` is derived and ignored when present.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            stations: try c.decode([StationMatch].self, forKey: .stations), page: try c.decode(Int.self, forKey: .page),
            pageSize: try c.decode(Int.self, forKey: .pageSize), totalCount: try c.decode(Int.self, forKey: .totalCount)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(stations, forKey: .stations)
        try c.encode(page, forKey: .page)
        try c.encode(pageSize, forKey: .pageSize)
        try c.encode(totalCount, forKey: .totalCount)
        try c.encode(hasMore, forKey: .hasMore)
    }
}

extension StationMatch {
    enum WireKeys: String, CodingKey { case station, distanceKilometres }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            station: try c.decode(Station.self, forKey: .station),
            distanceKilometres: try c.decodeIfPresent(Double.self, forKey: .distanceKilometres))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(station, forKey: .station)
        try c.encodeIfPresent(distanceKilometres, forKey: .distanceKilometres)
    }
}
