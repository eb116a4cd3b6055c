/// A charging station: where it is, its time zone, and its sockets.
public struct Station: Hashable, Codable, Sendable, Identifiable {
    public var id: StationID
    public var name: String
    public var city: String
    /// IANA time zone identifier, e.g. `Europe/London`. Slots are in this zone's local time.
    public var timeZone: String
    public var coordinate: Coordinate?
    public var sockets: [Socket]
    /// Hours every socket is open on a regular day, unless the socket says otherwise.
    public var openingHours: HourSet
    /// Facilities near the station ("cafe", "wc", "parking"), matched case-insensitively in search.
    public var facilities: [String]

    public init(
        id: StationID, name: String, city: String, timeZone: String, coordinate: Coordinate? = nil,
        sockets: [Socket], openingHours: HourSet = .allDay, facilities: [String] = []
    ) {
        self.id = id
        self.name = name
        self.city = city
        self.timeZone = timeZone
        self.coordinate = coordinate
        self.sockets = sockets
        self.openingHours = openingHours
        self.facilities = facilities
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(StationID.self, forKey: .id)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? id.rawValue
        city = try c.decodeIfPresent(String.self, forKey: .city) ?? ""
        timeZone = try c.decode(String.self, forKey: .timeZone)
        coordinate = try c.decodeIfPresent(Coordinate.self, forKey: .coordinate)
        sockets = try c.decode([Socket].self, forKey: .sockets)
        openingHours = try c.decodeIfPresent(HourSet.self, forKey: .openingHours) ?? .allDay
        facilities = try c.decodeIfPresent([String].self, forKey: .facilities) ?? []
    }
}

/// One bookable outlet of a station.
public struct Socket: Hashable, Codable, Sendable, Identifiable {
    public var id: SocketID
    public var connector: ConnectorType
    public var powerKW: Double
    /// Regular hours of this socket; `nil` means the station's ``Station/openingHours``.
    public var openingHours: HourSet?
    /// The code shown on the socket (or printed on a vehicle as a QR code): a check-in of a
    /// booking of this socket must present it (``Rejection/Reason/wrongAccessCode``); `nil` for
    /// none. A refusal never says what the right code is.
    public var accessCode: String?

    public init(
        id: SocketID, connector: ConnectorType, powerKW: Double, openingHours: HourSet? = nil,
        accessCode: String? = nil
    ) {
        self.id = id
        self.connector = connector
        self.powerKW = powerKW
        self.openingHours = openingHours
        self.accessCode = accessCode
    }
}

/// A point on Earth in degrees.
public struct Coordinate: Hashable, Codable, Sendable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether this is a point on Earth: latitude -90...90 and longitude -180...180 (so not NaN).
    public var isValid: Bool { (-90...90).contains(latitude) && (-180...180).contains(longitude) }

    /// Great-circle distance in kilometres (haversine, mean Earth radius 6371 km).
    public func distanceKilometres(to other: Coordinate) -> Double {
        let rad = Double.pi / 180
        let dLat = (other.latitude - latitude) * rad
        let dLon = (other.longitude - longitude) * rad
        let a =
            _sinSquared(dLat / 2) + _cos(latitude * rad) * _cos(other.latitude * rad) * _sinSquared(dLon / 2)
        return 2 * 6371 * _asin(min(1, a.squareRoot()))
    }
}
