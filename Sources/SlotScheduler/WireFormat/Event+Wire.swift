// The wire format of journal events and snapshots; see <doc:WireFormat>.

extension Event {
    /// The version every event is written with. A reader refuses a version it does not know.
    public static let wireVersion = 1

    enum WireKeys: String, CodingKey { case version, type, booking, user, at, change }

    enum WireType: String, Codable { case reserved, cancelled, displaced, availabilityChanged }

    /// Decodes `{"version":1,"type":…,…}`; refuses another version or type with a
    /// `DecodingError` naming it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard version == Self.wireVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c, debugDescription: "event version \(version); this reader knows 1")
        }
        switch try c.decode(WireType.self, forKey: .type) {
        case .reserved: self = .reserved(try c.decode(Booking.self, forKey: .booking))
        case .cancelled:
            self = .cancelled(
                try c.decode(BookingID.self, forKey: .booking), user: try c.decode(UserID.self, forKey: .user),
                at: try c.decode(Instant.self, forKey: .at))
        case .displaced:
            self = .displaced(
                try c.decode(BookingID.self, forKey: .booking), user: try c.decode(UserID.self, forKey: .user),
                at: try c.decode(Instant.self, forKey: .at))
        case .availabilityChanged:
            self = .availabilityChanged(
                try c.decode(AvailabilityChange.self, forKey: .change), at: try c.decode(Instant.self, forKey: .at))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(Self.wireVersion, forKey: .version)
        switch self {
        case .reserved(let booking):
            try c.encode(WireType.reserved, forKey: .type)
            try c.encode(booking, forKey: .booking)
        case .cancelled(let id, let user, let at), .displaced(let id, let user, let at):
            if case .cancelled = self {
                try c.encode(WireType.cancelled, forKey: .type)
            } else {
                try c.encode(WireType.displaced, forKey: .type)
            }
            try c.encode(id, forKey: .booking)
            try c.encode(user, forKey: .user)
            try c.encode(at, forKey: .at)
        case .availabilityChanged(let change, let at):
            try c.encode(WireType.availabilityChanged, forKey: .type)
            try c.encode(change, forKey: .change)
            try c.encode(at, forKey: .at)
        }
    }
}

extension AvailabilityChange {
    enum WireKeys: String, CodingKey { case station, socket, date, hours }

    /// Decodes the wire form; a missing `socket` means every socket, a missing `hours` the
    /// regular hours.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            station: try c.decode(StationID.self, forKey: .station),
            socket: try c.decodeIfPresent(SocketID.self, forKey: .socket),
            date: try c.decode(LocalDate.self, forKey: .date),
            hours: try c.decodeIfPresent(HourSet.self, forKey: .hours))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(station, forKey: .station)
        try c.encodeIfPresent(socket, forKey: .socket)
        try c.encode(date, forKey: .date)
        try c.encodeIfPresent(hours, forKey: .hours)
    }
}

extension Snapshot {
    enum WireKeys: String, CodingKey { case version, bookings, overrides }

    /// Decodes `{"version":1,"bookings":[…],"overrides":[…]}`; a snapshot without a version is
    /// read as version 1.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? Event.wireVersion
        guard version == Event.wireVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c, debugDescription: "snapshot version \(version); this reader knows 1")
        }
        self.init(
            bookings: try c.decode([Booking].self, forKey: .bookings),
            overrides: try c.decode([AvailabilityChange].self, forKey: .overrides))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(Event.wireVersion, forKey: .version)
        try c.encode(bookings, forKey: .bookings)
        try c.encode(overrides, forKey: .overrides)
    }
}
