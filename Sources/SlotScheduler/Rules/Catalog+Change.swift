/// A new station list for a running deployment: the stations to be in service from now on, in
/// the scenario file's format. What it adds, retires and changes is ``Catalog/changed(to:)``'s
/// comparison with the catalog in force; see ``Command/changeCatalog(_:onBookings:)``.
public struct CatalogChange: Hashable, Codable, Sendable {
    public var stations: [Station]

    public init(stations: [Station]) { self.stations = stations }
}

/// A station and one of its sockets, by id.
public struct SocketName: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    public var station: StationID
    public var socket: SocketID

    public init(station: StationID, socket: SocketID) {
        self.station = station
        self.socket = socket
    }

    public static func < (a: Self, b: Self) -> Bool { (a.station, a.socket) < (b.station, b.socket) }
    public var description: String { "\(station.rawValue)/\(socket.rawValue)" }
}

/// What a catalog change did to the stations, each list sorted by id.
public struct CatalogDifference: Hashable, Codable, Sendable {
    /// Stations new to the catalog (or back in service).
    public var addedStations: [StationID] = []
    /// Stations taken out of service; their sockets are in ``retiredSockets``.
    public var retiredStations: [StationID] = []
    /// Stations in service before and after whose name, place, hours, facilities, time zone or
    /// sockets changed.
    public var changedStations: [StationID] = []
    /// Sockets new to a station in service (an added station's included).
    public var addedSockets: [SocketName] = []
    /// Sockets taken out of service (a retired station's included).
    public var retiredSockets: [SocketName] = []

    public init() {}

    /// Whether the change left every station as it was.
    public var isEmpty: Bool { self == Self() }
}

extension Catalog {
    /// The catalog with `stations` in service: stations and sockets keep their indices; new ones
    /// are appended; those missing from `stations` are retired (closed every hour, unknown to
    /// ``resolve(_:)``, still naming the bookings they held); a retired station or socket listed
    /// again is back in service under its old index.
    ///
    /// - Throws: ``InvalidValue`` naming the station list's first invalid field (`stations[i]…`).
    /// - Complexity: O(stations + sockets) of both catalogs.
    public func changed(to stations: [Station]) throws(InvalidValue) -> Catalog {
        try Self.validate(stations, field: "stations")
        var layout = self.layout
        var isRetired = self.isRetired
        var sockets = socketsOfStation
        var retired = retiredSocketsOfStation
        var flat = flatSockets
        var stationIndex = self.stationIndex
        for station in stations {
            let i: Int
            if let known = stationIndex[station.id] {
                i = Int(known)
            } else {
                i = layout.count
                stationIndex[station.id] = Int32(i)
                layout.append(station)
                isRetired.append(false)
                sockets.append([])
                retired.append([])
            }
            var known: [SocketID: Int32] = [:]
            for f in sockets[i] + retired[i] { known[flat[Int(f)].id] = f }
            let active = station.sockets.map { socket -> Int32 in
                if let f = known.removeValue(forKey: socket.id) {
                    flat[Int(f)] = socket
                    return f
                }
                flat.append(socket)
                return Int32(flat.count - 1)
            }
            (layout[i], isRetired[i], sockets[i], retired[i]) = (station, false, active, known.values.sorted())
        }
        let listed = Set(stations.map(\.id))
        for i in layout.indices where !isRetired[i] && !listed.contains(layout[i].id) {
            // Its sockets are retired with it: named by `flatSockets`, listed by no station.
            (isRetired[i], retired[i], sockets[i]) = (true, (retired[i] + sockets[i]).sorted(), [])
            layout[i].sockets = []
        }
        return try Catalog(
            layout: layout, isRetired: isRetired, socketsOfStation: sockets, retiredSocketsOfStation: retired,
            flatSockets: flat, revision: revision + 1)
    }

    /// What changing this catalog to `next` (``changed(to:)``) adds, retires and changes.
    public func difference(to next: Catalog) -> CatalogDifference {
        var d = CatalogDifference()
        for (i, station) in next.layout.enumerated() where !next.isRetired[i] {
            guard let before = self.station(station.id) else {
                d.addedStations.append(station.id)
                d.addedSockets += station.sockets.map { SocketName(station: station.id, socket: $0.id) }
                continue
            }
            if before != station { d.changedStations.append(station.id) }
            let had = Set(before.sockets.map(\.id))
            let has = Set(station.sockets.map(\.id))
            d.addedSockets += station.sockets.filter { !had.contains($0.id) }.map {
                SocketName(station: station.id, socket: $0.id)
            }
            d.retiredSockets += before.sockets.filter { !has.contains($0.id) }.map {
                SocketName(station: station.id, socket: $0.id)
            }
        }
        for station in stations where next.station(station.id) == nil {
            d.retiredStations.append(station.id)
            d.retiredSockets += station.sockets.map { SocketName(station: station.id, socket: $0.id) }
        }
        d.addedStations.sort()
        d.retiredStations.sort()
        d.changedStations.sort()
        d.addedSockets.sort()
        d.retiredSockets.sort()
        return d
    }
}

extension Catalog {
    /// The flat indices of the sockets in service here whose bookings a change to `next` may
    /// displace or refuse: retired by it, with regular hours it closes, or at a station whose time
    /// zone it moves. Ascending.
    package func socketsAffected(by next: Catalog) -> [Int32] {
        var affected: [Int32] = []
        for (i, station) in layout.enumerated() where !isRetired[i] {
            let moved = next.station(station.id).map { $0.timeZone != station.timeZone } ?? true
            for f in socketsOfStation[i] {
                let stillOpen = Int(f) < next.regularHours.count && next.stationOfSocket[Int(f)] == Int32(i)
                let closes = !stillOpen || regularHours[Int(f)] & ~next.regularHours[Int(f)] != 0
                if moved || closes { affected.append(f) }
            }
        }
        return affected.sorted()
    }
}
