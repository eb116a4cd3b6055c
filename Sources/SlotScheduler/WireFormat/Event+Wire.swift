// The wire format of journal events and snapshots; see <doc:WireFormat>.

extension Event {
    /// The version the events of version 1 (`reserved`, `cancelled`, `displaced`,
    /// `availabilityChanged`) are written with, and snapshots without holds.
    public static let wireVersion = 1

    /// The newest event version this reader knows: version 2 added ``rescheduled(_:at:)`` and the
    /// hold events (``held(_:)``, ``holdConfirmed(_:)``, ``holdReleased(_:user:at:)``); version 3
    /// added ``checkedIn(_:user:at:)`` (and a booking's `checkedInAt` in snapshots); version 4
    /// added ``catalogChanged(_:at:)``; version 5 added ``checkedOut(_:user:at:)`` (and a
    /// booking's `checkedOutAt` and ``Booking/Status/fulfilled`` in snapshots); version 6 added
    /// a snapshot's ``Snapshot/movedRequests``.
    /// Every event is written with the oldest version that has its type, so a journal without
    /// them stays readable by version-1 readers.
    public static let newestWireVersion = 6

    enum WireKeys: String, CodingKey {
        case version, type, booking, user, at, change, from, to, start, requestID, hold, slot, stations
    }

    enum WireType: String, Codable {
        case reserved, cancelled, displaced, availabilityChanged, rescheduled, held, holdConfirmed, holdReleased
        case checkedIn
        case catalogChanged
        case checkedOut

        /// The version this type is written with: the first that has it. A reader takes it and
        /// any later version it knows.
        var version: Int {
            switch self {
            case .reserved, .cancelled, .displaced, .availabilityChanged: Event.wireVersion
            case .rescheduled, .held, .holdConfirmed, .holdReleased: 2
            case .checkedIn: 3
            case .catalogChanged: 4
            case .checkedOut: 5
            }
        }
    }

    var wireType: WireType {
        switch self {
        case .reserved: .reserved
        case .cancelled: .cancelled
        case .displaced: .displaced
        case .availabilityChanged: .availabilityChanged
        case .rescheduled: .rescheduled
        case .held: .held
        case .holdConfirmed: .holdConfirmed
        case .holdReleased: .holdReleased
        case .checkedIn: .checkedIn
        case .catalogChanged: .catalogChanged
        case .checkedOut: .checkedOut
        }
    }

    /// Decodes `{"version":1,"type":…,…}` (version 2 for events added in it); refuses another version or type with a
    /// `DecodingError` naming it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let version = try c.decode(Int.self, forKey: .version)
        let type = try c.decode(WireType.self, forKey: .type)
        guard (type.version...Self.newestWireVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c,
                debugDescription:
                    "\(type.rawValue) event of version \(version); this reader knows \(type.version)...\(Self.newestWireVersion)"
            )
        }
        switch type {
        case .rescheduled:
            self = .rescheduled(
                BookingMove(
                    booking: try c.decode(BookingID.self, forKey: .booking),
                    user: try c.decode(UserID.self, forKey: .user),
                    from: try c.decode(Slot.self, forKey: .from), to: try c.decode(Slot.self, forKey: .to),
                    start: try c.decode(Instant.self, forKey: .start),
                    requestID: try c.decodeIfPresent(RequestID.self, forKey: .requestID)),
                at: try c.decode(Instant.self, forKey: .at))
        case .reserved: self = .reserved(try c.decode(Booking.self, forKey: .booking))
        case .checkedIn:
            self = .checkedIn(
                try c.decode(BookingID.self, forKey: .booking), user: try c.decode(UserID.self, forKey: .user),
                at: try c.decode(Instant.self, forKey: .at))
        case .checkedOut:
            self = .checkedOut(
                try c.decode(BookingID.self, forKey: .booking), user: try c.decode(UserID.self, forKey: .user),
                at: try c.decode(Instant.self, forKey: .at))
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
        case .catalogChanged:
            self = .catalogChanged(
                CatalogChange(stations: try c.decode([Station].self, forKey: .stations)),
                at: try c.decode(Instant.self, forKey: .at))
        case .held: self = .held(try c.decode(Hold.self, forKey: .hold))
        case .holdConfirmed: self = .holdConfirmed(try c.decode(Booking.self, forKey: .booking))
        case .holdReleased:
            self = .holdReleased(
                try c.decode(Slot.self, forKey: .slot), user: try c.decode(UserID.self, forKey: .user),
                at: try c.decode(Instant.self, forKey: .at))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(wireType.version, forKey: .version)
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
        case .cancelled(let id, let user, let at), .displaced(let id, let user, let at),
            .checkedIn(let id, let user, let at), .checkedOut(let id, let user, let at):
            try c.encode(wireType, forKey: .type)
            try c.encode(id, forKey: .booking)
            try c.encode(user, forKey: .user)
            try c.encode(at, forKey: .at)
        case .availabilityChanged(let change, let at):
            try c.encode(WireType.availabilityChanged, forKey: .type)
            try c.encode(change, forKey: .change)
            try c.encode(at, forKey: .at)
        case .catalogChanged(let change, let at):
            try c.encode(WireType.catalogChanged, forKey: .type)
            try c.encode(change.stations, forKey: .stations)
            try c.encode(at, forKey: .at)
        case .held(let hold):
            try c.encode(WireType.held, forKey: .type)
            try c.encode(hold, forKey: .hold)
        case .holdConfirmed(let booking):
            try c.encode(WireType.holdConfirmed, forKey: .type)
            try c.encode(booking, forKey: .booking)
        case .holdReleased(let slot, let user, let at):
            try c.encode(WireType.holdReleased, forKey: .type)
            try c.encode(slot, forKey: .slot)
            try c.encode(user, forKey: .user)
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

extension MovedRequest: Codable {
    enum WireKeys: String, CodingKey { case user, requestID, booking, slot }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        self.init(
            user: try c.decode(UserID.self, forKey: .user), requestID: try c.decode(RequestID.self, forKey: .requestID),
            booking: try c.decode(BookingID.self, forKey: .booking), slot: try c.decode(Slot.self, forKey: .slot))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        try c.encode(user, forKey: .user)
        try c.encode(requestID, forKey: .requestID)
        try c.encode(booking, forKey: .booking)
        try c.encode(slot, forKey: .slot)
    }
}

extension Snapshot {
    enum WireKeys: String, CodingKey {
        case version, bookings, overrides, rescheduleRequests, releasedBefore, lastIDs, holds, movedRequests
    }

    /// Decodes `{"version":1,"bookings":[…],"overrides":[…]}`, or version 2 with
    /// `rescheduleRequests`, `holds`, or `releasedBefore` (a date) and `lastIDs` (booking ids)
    /// after a release, or version 3 with bookings checked in (`checkedInAt`), or version 5 with
    /// bookings checked out (`checkedOutAt`, status `fulfilled`), or version 6 with
    /// `movedRequests`; a snapshot without a version is
    /// read as version 1, one of version 1 with holds, one before version 3 with a check-in and
    /// one before version 5 with a check-out are refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? Event.wireVersion
        guard (Event.wireVersion...Event.newestWireVersion).contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c,
                debugDescription: "snapshot version \(version); this reader knows 1...\(Event.newestWireVersion)")
        }
        let holds = try c.decodeIfPresent([Hold].self, forKey: .holds) ?? []
        guard holds.isEmpty || version >= 2 else {
            throw DecodingError.dataCorruptedError(
                forKey: .holds, in: c, debugDescription: "a snapshot with holds must be version 2")
        }
        let bookings = try c.decode([Booking].self, forKey: .bookings)
        guard version >= 3 || bookings.allSatisfy({ $0.checkedInAt == nil }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .bookings, in: c, debugDescription: "a snapshot with check-ins must be version 3")
        }
        guard version >= 5 || bookings.allSatisfy({ !$0.isCheckedOut }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .bookings, in: c, debugDescription: "a snapshot with check-outs must be version 5")
        }
        self.init(
            bookings: bookings,
            overrides: try c.decode([AvailabilityChange].self, forKey: .overrides),
            rescheduleRequests: try c.decodeIfPresent([RememberedReschedule].self, forKey: .rescheduleRequests) ?? [],
            holds: holds)
        releasedBefore = try c.decodeIfPresent(LocalDate.self, forKey: .releasedBefore)
        lastIDs = try c.decodeIfPresent([BookingID].self, forKey: .lastIDs)
        movedRequests = try c.decodeIfPresent([MovedRequest].self, forKey: .movedRequests) ?? []
        guard version >= 6 || movedRequests.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .movedRequests, in: c, debugDescription: "a snapshot with moved requests must be version 6")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKeys.self)
        // Version 2 only when it holds what version 1 has no place for.
        // Version 3 only with a check-in, version 5 only with a check-out.
        let version1 = rescheduleRequests.isEmpty && releasedBefore == nil && holds.isEmpty
        let version3 = bookings.contains { $0.checkedInAt != nil }
        let version5 = bookings.contains { $0.isCheckedOut }
        let version6 = !movedRequests.isEmpty
        try c.encode(
            version6 ? 6 : version5 ? 5 : version3 ? 3 : version1 ? Event.wireVersion : 2, forKey: .version)
        try c.encode(bookings, forKey: .bookings)
        try c.encode(overrides, forKey: .overrides)
        if !rescheduleRequests.isEmpty { try c.encode(rescheduleRequests, forKey: .rescheduleRequests) }
        try c.encodeIfPresent(releasedBefore, forKey: .releasedBefore)
        try c.encodeIfPresent(lastIDs, forKey: .lastIDs)
        if !holds.isEmpty { try c.encode(holds, forKey: .holds) }
        if !movedRequests.isEmpty { try c.encode(movedRequests, forKey: .movedRequests) }
    }
}
