/// The stations a scheduler serves, validated once and interned to dense integers.
///
/// Building a catalog checks every station (unique ids, known IANA time zones, sockets with a
/// positive power) and precomputes each time zone's offsets, so the booking path never touches a
/// string or a calendar.
///
/// **Indices are for life.** A catalog changed on a live deployment (``changed(to:)``) keeps
/// every station's index and every socket's flat index; new stations and sockets get the next
/// ones, and a retired station or socket keeps its index, closed every hour and unknown to
/// ``resolve(_:)``, so the bookings it held (past ones stay history) still name it. Flat socket
/// indices of one station are therefore not always contiguous: `socket(ofStation:at:)` maps.
public struct Catalog: Sendable {
    /// The stations in service, in index order (a retired station is left out, and a retired
    /// socket from its station).
    public let stations: [Station]
    /// How many catalog changes led to this catalog: 0 for one built from a station list.
    public let revision: Int
    /// Every station by index, retired ones included (with the sockets they had in service).
    let layout: [Station]
    /// Whether each station (by index) is retired.
    let isRetired: [Bool]
    /// Every station's index, retired ones included.
    let stationIndex: [StationID: Int32]
    /// The flat index of each socket of `layout[i]`, in its order.
    let socketsOfStation: [[Int32]]
    /// The flat indices of each station's retired sockets, ascending.
    let retiredSocketsOfStation: [[Int32]]
    /// Every socket ever, by flat index (a retired one as it last was).
    let flatSockets: [Socket]
    /// Regular open hours per flat socket index: none for a retired socket.
    let regularHours: [UInt32]
    /// The station of each flat socket index (``owns(_:)``).
    let stationOfSocket: [Int32]
    /// Zone clock index per station.
    let zoneOfStation: [Int32]
    let zones: [ZoneClock]

    /// Validates and interns `stations`.
    public init(_ stations: [Station]) throws(InvalidValue) {
        try Self.validate(stations, field: "stations")
        var sockets: [[Int32]] = []
        var flat: [Socket] = []
        for station in stations {
            sockets.append((0..<station.sockets.count).map { Int32(flat.count + $0) })
            flat.append(contentsOf: station.sockets)
        }
        try self.init(
            layout: stations, isRetired: Array(repeating: false, count: stations.count), socketsOfStation: sockets,
            retiredSocketsOfStation: Array(repeating: [], count: stations.count), flatSockets: flat, revision: 0)
    }

    /// Interns a layout; the stations in it are valid (``validate(_:field:)``).
    init(
        layout: [Station], isRetired: [Bool], socketsOfStation: [[Int32]], retiredSocketsOfStation: [[Int32]],
        flatSockets: [Socket], revision: Int
    ) throws(InvalidValue) {
        guard layout.count <= 1_000_000 else {
            throw InvalidValue(
                field: "stations", value: String(layout.count), expected: "at most 1000000 stations",
                turkish: "en çok 1000000 istasyon")
        }
        guard flatSockets.count <= Int(Int32.max / 24) else {
            throw InvalidValue(
                field: "stations", value: String(flatSockets.count), expected: "fewer sockets",
                turkish: "daha az soket")
        }
        var stationIndex: [StationID: Int32] = [:]
        var zoneOfStation: [Int32] = []
        var zones: [ZoneClock] = []
        var zoneIndex: [String: Int32] = [:]
        var regularHours = [UInt32](repeating: 0, count: flatSockets.count)
        var stationOfSocket = [Int32](repeating: -1, count: flatSockets.count)
        for (i, station) in layout.enumerated() {
            stationIndex[station.id] = Int32(i)
            if let zone = zoneIndex[station.timeZone] {
                zoneOfStation.append(zone)
            } else {
                guard let clock = ZoneClock(identifier: station.timeZone) else {
                    let (english, turkish) = ZoneClock.refusal(of: station.timeZone)
                    throw InvalidValue(
                        field: "stations[\(i)].timeZone", value: station.timeZone, expected: english, turkish: turkish)
                }
                zoneIndex[station.timeZone] = Int32(zones.count)
                zoneOfStation.append(Int32(zones.count))
                zones.append(clock)
            }
            for (k, socket) in station.sockets.enumerated() {
                let f = Int(socketsOfStation[i][k])
                stationOfSocket[f] = Int32(i)
                if !isRetired[i] { regularHours[f] = (socket.openingHours ?? station.openingHours).mask }
            }
            for f in retiredSocketsOfStation[i] { stationOfSocket[Int(f)] = Int32(i) }
        }
        if let orphan = stationOfSocket.firstIndex(of: -1) {
            throw InvalidValue(
                field: "catalog.flatSockets[\(orphan)]", value: flatSockets[orphan].id.rawValue,
                expected: "a socket index of one station", turkish: "bir istasyonun soket dizini")
        }
        self.stations = layout.indices.filter { !isRetired[$0] }.map { layout[$0] }
        self.revision = revision
        self.layout = layout
        self.isRetired = isRetired
        self.stationIndex = stationIndex
        self.socketsOfStation = socketsOfStation
        self.retiredSocketsOfStation = retiredSocketsOfStation
        self.flatSockets = flatSockets
        self.regularHours = regularHours
        self.stationOfSocket = stationOfSocket
        self.zoneOfStation = zoneOfStation
        self.zones = zones
    }

    /// Validates every station of a list and that their ids are unique; `field` names the list.
    static func validate(_ stations: [Station], field: String) throws(InvalidValue) {
        guard stations.count <= 1_000_000 else {
            throw InvalidValue(
                field: field, value: String(stations.count), expected: "at most 1000000 stations",
                turkish: "en çok 1000000 istasyon")
        }
        var seen = Set<StationID>()
        for (i, station) in stations.enumerated() {
            let path = "\(field)[\(i)]"
            try validate(station, at: path)
            guard seen.insert(station.id).inserted else {
                throw InvalidValue(
                    field: "\(path).id", value: station.id.rawValue, expected: "a unique station id",
                    turkish: "benzersiz bir istasyon kimliği")
            }
            guard ZoneClock(identifier: station.timeZone) != nil else {
                let (english, turkish) = ZoneClock.refusal(of: station.timeZone)
                throw InvalidValue(
                    field: "\(path).timeZone", value: station.timeZone, expected: english, turkish: turkish)
            }
        }
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
            if let code = socket.accessCode {
                try IdentifierRule.validate(code, field: "\(path).sockets[\(j)].accessCode")
            }
            guard socket.powerKW.isFinite, socket.powerKW > 0, socket.powerKW <= 10_000 else {
                throw InvalidValue(
                    field: "\(path).sockets[\(j)].powerKW", value: String(socket.powerKW),
                    expected: "a power in kW greater than 0 and at most 10000",
                    turkish: "0'dan büyük, en çok 10000 kW bir güç")
            }
        }
    }

    /// Total number of flat socket indices, retired sockets included.
    public var socketCount: Int { regularHours.count }

    /// The station with `id`, if it is in service.
    public func station(_ id: StationID) -> Station? {
        guard let i = stationIndex[id], !isRetired[Int(i)] else { return nil }
        return layout[Int(i)]
    }

    /// The flat index of the `k`-th socket in service of the station with index `station`.
    @inline(__always)
    func socket(ofStation station: Int32, at k: Int) -> Int32 { socketsOfStation[Int(station)][k] }

    /// The station with index `station`, as in service (or as it was when retired).
    @inline(__always)
    func station(at station: Int32) -> Station { layout[Int(station)] }

    /// Interns `slot` for the fast booking path, refusing unknown stations, sockets and hours, and
    /// dates outside ``LocalDate/supportedRange``.
    public func resolve(_ slot: Slot) throws(Rejection) -> SlotRef {
        try resolve(slot, includingRetired: false)
    }

    /// ``resolve(_:)``, or with `includingRetired` also a retired station's or socket's slot: what
    /// a replay and a restore resolve recorded bookings with.
    func resolve(_ slot: Slot, includingRetired: Bool) throws(Rejection) -> SlotRef {
        guard let station = stationIndex[slot.station], includingRetired || !isRetired[Int(station)] else {
            throw Rejection(.unknownStation, slot: slot, value: IdentifierRule.shortened(slot.station.rawValue))
        }
        let socket: Int32
        if let k = layout[Int(station)].sockets.firstIndex(where: { $0.id == slot.socket }) {
            socket = socketsOfStation[Int(station)][k]
        } else if includingRetired,
            let f = retiredSocketsOfStation[Int(station)].first(where: { flatSockets[Int($0)].id == slot.socket })
        {
            socket = f
        } else {
            throw Rejection(.unknownSocket, slot: slot, value: IdentifierRule.shortened(slot.socket.rawValue))
        }
        guard (0...23).contains(slot.hour) else {
            throw Rejection(.invalidHour, slot: slot, value: String(slot.hour))
        }
        guard LocalDate.supportedRange.contains(slot.date) else {
            throw Rejection(.unsupportedDate, slot: slot, date: slot.date)
        }
        return SlotRef(station: station, socket: socket, day: slot.date.dayNumber, hour: Int32(slot.hour))
    }

    /// The catalog index of `station`, refusing an unknown station or a date outside
    /// ``LocalDate/supportedRange``: the check of every station-and-date command and query.
    func index(of station: StationID, on date: LocalDate) throws(Rejection) -> Int32 {
        guard let index = stationIndex[station], !isRetired[Int(index)] else {
            throw Rejection(.unknownStation, value: IdentifierRule.shortened(station.rawValue))
        }
        guard LocalDate.supportedRange.contains(date) else { throw Rejection(.unsupportedDate, date: date) }
        return index
    }

    /// The slot of the `socket`-th socket (in declaration order) of the station with catalog index
    /// `station` (its place in ``stations`` until a catalog change retires a station), as
    /// ``resolve(_:)`` interns it, without looking either up: for callers that walk the catalog
    /// (every cell of a simulation's domain). `nil` for an index, hour or date out of range, or a
    /// retired station.
    /// - Complexity: O(1), where ``resolve(_:)`` searches the station's sockets.
    public func slot(station: Int, socket: Int, date: LocalDate, hour: Int) -> SlotRef? {
        guard layout.indices.contains(station), !isRetired[station], layout[station].sockets.indices.contains(socket),
            (0...23).contains(hour), LocalDate.supportedRange.contains(date)
        else { return nil }
        return SlotRef(
            station: Int32(station), socket: socketsOfStation[station][socket], day: date.dayNumber, hour: Int32(hour))
    }

    /// The public slot an interned reference names; for a reference another catalog issued, its
    /// date and hour with empty station and socket ids (which no catalog resolves).
    /// The socket a slot reference names (retired or in service); `nil` for a reference another
    /// catalog issued.
    public func socket(_ ref: SlotRef) -> Socket? {
        owns(ref) ? flatSockets[Int(ref.socket)] : nil
    }

    public func slot(_ ref: SlotRef) -> Slot {
        guard owns(ref) else {
            return Slot(station: "", socket: "", date: LocalDate(dayNumber: ref.day), hour: Int(ref.hour))
        }
        let station = layout[Int(ref.station)]
        let socket = flatSockets[Int(ref.socket)]
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
