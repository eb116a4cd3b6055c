// The wire format of journal events and snapshots; see <doc:WireFormat>.

extension Event {
    /// The version every event is written with. A reader refuses a version it does not know.
    public static let wireVersion = 1

    /// The newest event version this reader knows: version 2 added ``rescheduled(_:at:)``.
    /// Every event is written with the oldest version that has its type, so a journal without
    /// reschedules stays readable by version-1 readers.
    public static let newestWireVersion = 2

    enum WireKeys: String, CodingKey { case version, type, booking, user, at, change, from, to, start, requestID }

    enum WireType: String, Codable { case reserved, cancelled, displaced, availabilityChanged, rescheduled }

    /// The version this event is written with: the first that has its type.
    var writtenVersion: Int {
        if case .rescheduled = self { return 2 }
        return Self.wireVersion
    }

    /// Decodes `{"version":1,"type":…,…}`; refuses another version or type with a
    /// `DecodingError` naming it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        guard (Self.wireVersion...Self.newestWireVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c, debugDescription: "event version \(version); this reader knows 1 and 2")
        }
        switch try c.decode(WireType.self, forKey: .type) {
        case .rescheduled:
            guard version >= 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .version, in: c, debugDescription: "a rescheduled event is version 2, not \(version)")
            }
            self = .rescheduled(
                BookingMove(
                    booking: try c.decode(BookingID.self, forKey: .booking),
                    user: try c.decode(UserID.self, forKey: .user),
                    from: try c.decode(Slot.self, forKey: .from), to: try c.decode(Slot.self, forKey: .to),
                    start: try c.decode(Instant.self, forKey: .start),
                    requestID: try c.decodeIfPresent(RequestID.self, forKey: .requestID)),
                at: try c.decode(Instant.self, forKey: .at))
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
        try c.encode(writtenVersion, forKey: .version)
        switch self {
        case .rescheduled(let move, let at):
            try c.encode(WireType.rescheduled, forKey: .type)
            try c.encode(move.booking, forKey: .booking)
            try c.encode(move.user, forKey: .user)
            try c.encode(move.from, forKey: .from)
            try c.encode(move.to, forKey: .to)
            try c.encode(move.start, forKey: .start)
            try c.encodeIfPresent(move.requestID, forKey: .requestID)
            try c.encode(at, forKey: .at)
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

extension RememberedReschedule: Codable {
    enum WireKeys: String, CodingKey { case user, requestID, booking, to }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            user: try c.decode(UserID.self, forKey: .user), requestID: try c.decode(RequestID.self, forKey: .requestID),
            booking: try c.decode(BookingID.self, forKey: .booking), to: try c.decode(Slot.self, forKey: .to))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(user, forKey: .user)
        try c.encode(requestID, forKey: .requestID)
        try c.encode(booking, forKey: .booking)
        try c.encode(to, forKey: .to)
    }
}

extension Snapshot {
    enum WireKeys: String, CodingKey { case version, bookings, overrides, rescheduleRequests, releasedBefore, lastIDs }

    /// Decodes `{"version":1,"bookings":[…],"overrides":[…]}`, or version 2 with
    /// `rescheduleRequests`, or `releasedBefore` (a date) and `lastIDs` (booking ids) after a
    /// release; a snapshot without a version is read as version 1.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? Event.wireVersion
        guard (Event.wireVersion...Event.newestWireVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c, debugDescription: "snapshot version \(version); this reader knows 1 and 2")
        }
        self.init(
            bookings: try c.decode([Booking].self, forKey: .bookings),
            overrides: try c.decode([AvailabilityChange].self, forKey: .overrides),
            rescheduleRequests: try c.decodeIfPresent([RememberedReschedule].self, forKey: .rescheduleRequests) ?? [])
        releasedBefore = try c.decodeIfPresent(LocalDate.self, forKey: .releasedBefore)
        lastIDs = try c.decodeIfPresent([BookingID].self, forKey: .lastIDs)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        // Version 2 only when it holds what version 1 has no place for.
        try c.encode(rescheduleRequests.isEmpty && releasedBefore == nil ? Event.wireVersion : 2, forKey: .version)
        try c.encode(bookings, forKey: .bookings)
        try c.encode(overrides, forKey: .overrides)
        if !rescheduleRequests.isEmpty { try c.encode(rescheduleRequests, forKey: .rescheduleRequests) }
        try c.encodeIfPresent(releasedBefore, forKey: .releasedBefore)
        try c.encodeIfPresent(lastIDs, forKey: .lastIDs)
    }
}
