/// The stations a scheduler serves, validated once and interned to dense integers.
///
/// Building a catalog checks every station (unique ids, known IANA time zones, sockets with a
/// positive power) and precomputes each time zone's offsets, so the booking path never touches a
/// string or a calendar.
public struct Catalog: Sendable {
    /// The stations, in the order given.
    public let stations: [Station]
    let stationIndex: [StationID: Int32]
    /// Index of each station's first socket in the flat socket arrays.
    let socketBase: [Int32]
    /// Regular open hours per flat socket index.
    let regularHours: [UInt32]
    /// The station of each flat socket index (``owns(_:)``).
    let stationOfSocket: [Int32]
    /// Zone clock index per station.
    let zoneOfStation: [Int32]
    let zones: [ZoneClock]

    /// Validates and interns `stations`.
    public init(_ stations: [Station]) throws(InvalidValue) {
        guard stations.count <= 1_000_000 else {
            throw InvalidValue(
                field: "stations", value: String(stations.count), expected: "at most 1000000 stations",
                turkish: "en çok 1000000 istasyon")
        }
        var stationIndex: [StationID: Int32] = [:]
        var socketBase: [Int32] = []
        var regularHours: [UInt32] = []
        var zoneOfStation: [Int32] = []
        var zones: [ZoneClock] = []
        var zoneIndex: [String: Int32] = [:]
        for (i, station) in stations.enumerated() {
            let path = "stations[\(i)]"
            try Self.validate(station, at: path)
            guard stationIndex.updateValue(Int32(i), forKey: station.id) == nil else {
                throw InvalidValue(
                    field: "\(path).id", value: station.id.rawValue, expected: "a unique station id",
                    turkish: "benzersiz bir istasyon kimliği")
            }
            if let zone = zoneIndex[station.timeZone] {
                zoneOfStation.append(zone)
            } else {
                guard let clock = ZoneClock(identifier: station.timeZone) else {
                    let (english, turkish) = ZoneClock.refusal(of: station.timeZone)
                    throw InvalidValue(
                        field: "\(path).timeZone", value: station.timeZone, expected: english, turkish: turkish)
                }
                zoneIndex[station.timeZone] = Int32(zones.count)
                zoneOfStation.append(Int32(zones.count))
                zones.append(clock)
            }
            socketBase.append(Int32(regularHours.count))
            for socket in station.sockets { regularHours.append((socket.openingHours ?? station.openingHours).mask) }
        }
        guard regularHours.count <= Int(Int32.max / 24) else {
            throw InvalidValue(
                field: "stations", value: String(regularHours.count), expected: "fewer sockets",
                turkish: "daha az soket")
        }
        self.stations = stations
        self.stationIndex = stationIndex
        self.socketBase = socketBase
        self.regularHours = regularHours
        self.stationOfSocket = socketBase.indices.flatMap { station in
            repeatElement(Int32(station), count: stations[station].sockets.count)
        }
        self.zoneOfStation = zoneOfStation
        self.zones = zones
    }

    private static func validate(_ station: Station, at path: String) throws(InvalidValue) {
        try IdentifierRule.validate(station.id.rawValue, field: "\(path).id")
        guard !station.sockets.isEmpty, station.sockets.count <= 10_000 else {
            throw InvalidValue(
                field: "\(path).sockets", value: String(station.sockets.count), expected: "1 to 10000 sockets",
                turkish: "1 ile 10000 arası soket")
        }
        if let c = station.coordinate {
            guard c.isValid else {
                throw InvalidValue(
                    field: "\(path).coordinate", value: "\(c.latitude),\(c.longitude)",
                    expected: "latitude -90...90 and longitude -180...180",
                    turkish: "-90...90 arası enlem ve -180...180 arası boylam")
            }
        }
        var seen = Set<SocketID>()
        for (j, socket) in station.sockets.enumerated() {
            try IdentifierRule.validate(socket.id.rawValue, field: "\(path).sockets[\(j)].id")
            guard seen.insert(socket.id).inserted else {
                throw InvalidValue(
                    field: "\(path).sockets[\(j)].id", value: socket.id.rawValue,
                    expected: "a socket id unique within the station",
                    turkish: "istasyon içinde benzersiz bir soket kimliği")
            }
            guard socket.powerKW.isFinite, socket.powerKW > 0, socket.powerKW <= 10_000 else {
                throw InvalidValue(
                    field: "\(path).sockets[\(j)].powerKW", value: String(socket.powerKW),
                    expected: "a power in kW greater than 0 and at most 10000",
                    turkish: "0'dan büyük, en çok 10000 kW bir güç")
            }
        }
    }

    /// Total number of sockets over all stations.
    public var socketCount: Int { regularHours.count }

    /// The station with `id`, if the catalog has it.
    public func station(_ id: StationID) -> Station? {
        stationIndex[id].map { stations[Int($0)] }
    }

    /// Interns `slot` for the fast booking path, refusing unknown stations, sockets and hours, and
    /// dates outside ``LocalDate/supportedRange``.
    public func resolve(_ slot: Slot) throws(Rejection) -> SlotRef {
        guard let station = stationIndex[slot.station] else {
            throw Rejection(.unknownStation, slot: slot, value: IdentifierRule.shortened(slot.station.rawValue))
        }
        guard let local = stations[Int(station)].sockets.firstIndex(where: { $0.id == slot.socket }) else {
            throw Rejection(.unknownSocket, slot: slot, value: IdentifierRule.shortened(slot.socket.rawValue))
        }
        guard (0...23).contains(slot.hour) else {
            throw Rejection(.invalidHour, slot: slot, value: String(slot.hour))
        }
        guard LocalDate.supportedRange.contains(slot.date) else {
            throw Rejection(.unsupportedDate, slot: slot, date: slot.date)
        }
        return SlotRef(
            station: station, socket: socketBase[Int(station)] + Int32(local), day: slot.date.dayNumber,
            hour: Int32(slot.hour))
    }

    /// The catalog index of `station`, refusing an unknown station or a date outside
    /// ``LocalDate/supportedRange``: the check of every station-and-date command and query.
    func index(of station: StationID, on date: LocalDate) throws(Rejection) -> Int32 {
        guard let index = stationIndex[station] else {
            throw Rejection(.unknownStation, value: IdentifierRule.shortened(station.rawValue))
        }
        guard LocalDate.supportedRange.contains(date) else { throw Rejection(.unsupportedDate, date: date) }
        return index
    }

    /// The slot of the `socket`-th socket (in declaration order) of the `station`-th station, as
    /// ``resolve(_:)`` interns it, without looking either up: for callers that walk the catalog
    /// (every cell of a simulation's domain). `nil` for an index, hour or date out of range.
    /// - Complexity: O(1), where ``resolve(_:)`` searches the station's sockets.
    public func slot(station: Int, socket: Int, date: LocalDate, hour: Int) -> SlotRef? {
        guard stations.indices.contains(station), stations[station].sockets.indices.contains(socket),
            (0...23).contains(hour), LocalDate.supportedRange.contains(date)
        else { return nil }
        return SlotRef(
            station: Int32(station), socket: socketBase[station] + Int32(socket), day: date.dayNumber,
            hour: Int32(hour))
    }

    /// The public slot an interned reference names; for a reference another catalog issued, its
    /// date and hour with empty station and socket ids (which no catalog resolves).
    public func slot(_ ref: SlotRef) -> Slot {
        guard owns(ref) else {
            return Slot(station: "", socket: "", date: LocalDate(dayNumber: ref.day), hour: Int(ref.hour))
        }
        let station = stations[Int(ref.station)]
        let socket = station.sockets[Int(ref.socket - socketBase[Int(ref.station)])]
        return Slot(station: station.id, socket: socket.id, date: LocalDate(dayNumber: ref.day), hour: Int(ref.hour))
    }

    /// The time zone table of the station with catalog index `station`.
    func zone(of station: Int32) -> ZoneClock { zones[Int(zoneOfStation[Int(station)])] }

    /// Whether `ref` names a socket of this catalog: `false` for one another catalog (a larger
    /// layout) resolved, whose indexes would reach past this one's arrays.
    /// - Complexity: O(1): one array read (it is on the `attempt` path).
    @inline(__always)
    func owns(_ ref: SlotRef) -> Bool {
        let socket = Int(ref.socket)
        return socket >= 0 && socket < stationOfSocket.count && stationOfSocket[socket] == ref.station
    }

    /// The instant a slot starts, or `nil` for a local time that does not exist (DST gap) or a
    /// reference this catalog did not issue.
    public func start(of ref: SlotRef) -> Instant? {
        guard owns(ref) else { return nil }
        return zone(of: ref.station).start(day: ref.day, hour: Int(ref.hour)).map { Instant($0) }
    }

    /// The station's local date at `now`.
    public func localDate(of station: StationID, at now: Instant) -> LocalDate? {
        stationIndex[station].map { localDate(ofStation: $0, at: now) }
    }
}

/// A slot interned to integers by ``Catalog/resolve(_:)``: the currency of the fast path.
public struct SlotRef: Hashable, Sendable, BitwiseCopyable {
    public let station: Int32
    /// Flat socket index over the whole catalog.
    public let socket: Int32
    public let day: Int32
    public let hour: Int32

    init(station: Int32, socket: Int32, day: Int32, hour: Int32) {
        self.station = station
        self.socket = socket
        self.day = day
        self.hour = hour
    }
}
