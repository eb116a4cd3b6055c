// The wire format of bookings, requests and slots; see <doc:WireFormat>.

extension Slot {
    enum WireKeys: String, CodingKey { case station, socket, date, hour }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            station: try c.decode(StationID.self, forKey: .station),
            socket: try c.decode(SocketID.self, forKey: .socket),
            date: try c.decode(LocalDate.self, forKey: .date), hour: try c.decode(Int.self, forKey: .hour))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(station, forKey: .station)
        try c.encode(socket, forKey: .socket)
        try c.encode(date, forKey: .date)
        try c.encode(hour, forKey: .hour)
    }
}

extension Booking {
    enum WireKeys: String, CodingKey {
        case id, slot, user, start, end, createdAt, requestID, reminderSeconds, status, checkedInAt, checkedOutAt
    }

    /// Decodes the wire form; `end` is derived and ignored when present; `checkedInAt` is
    /// present only for a booking checked in, `checkedOutAt` only for one checked out.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            id: try c.decode(BookingID.self, forKey: .id), slot: try c.decode(Slot.self, forKey: .slot),
            user: try c.decode(UserID.self, forKey: .user), start: try c.decode(Instant.self, forKey: .start),
            createdAt: try c.decode(Instant.self, forKey: .createdAt),
            requestID: try c.decodeIfPresent(RequestID.self, forKey: .requestID),
            reminderOffsetSeconds: try c.decodeIfPresent(Int64.self, forKey: .reminderSeconds),
            status: try c.decode(Status.self, forKey: .status))
        checkedInAt = try c.decodeIfPresent(Instant.self, forKey: .checkedInAt)
        checkedOutAt = try c.decodeIfPresent(Instant.self, forKey: .checkedOutAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(slot, forKey: .slot)
        try c.encode(user, forKey: .user)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(requestID, forKey: .requestID)
        try c.encodeIfPresent(reminderOffsetSeconds, forKey: .reminderSeconds)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(checkedInAt, forKey: .checkedInAt)
        try c.encodeIfPresent(checkedOutAt, forKey: .checkedOutAt)
    }
}

extension ReservationRequest {
    enum WireKeys: String, CodingKey { case slot, user, requestID, reminderSeconds }

    /// Decodes the wire form: the reminder in whole seconds (`reminderSeconds`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            slot: try c.decode(Slot.self, forKey: .slot), user: try c.decode(UserID.self, forKey: .user),
            requestID: try c.decodeIfPresent(RequestID.self, forKey: .requestID),
            reminder: try c.decodeIfPresent(Int64.self, forKey: .reminderSeconds).map { .seconds($0) })
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(slot, forKey: .slot)
        try c.encode(user, forKey: .user)
        try c.encodeIfPresent(requestID, forKey: .requestID)
        try c.encodeIfPresent(reminderSeconds, forKey: .reminderSeconds)
    }
}

extension BookingID {
    /// Encodes as a JSON string of decimal digits (`"1099511627777"`): ids use the high bits, and
    /// JavaScript numbers are exact only up to 2^53. Decodes a string or a number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(UInt64.self) {
            self.init(number)
            return
        }
        let text = try container.decode(String.self)
        guard let id = BookingID(text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "\(IdentifierRule.shortened(text).debugDescription) is not a booking id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
