/// Which stations and sockets a free-slot search considers.
public struct SlotFilter: Hashable, Codable, Sendable {
    /// Only stations in this city (compared folded, see ``TextFolding``).
    public var city: String?
    public var connector: ConnectorType?
    public var minimumPowerKW: Double?
    /// Sort results nearest first from here; ignored unless ``Coordinate/isValid``.
    public var near: Coordinate?
    /// How many days from the station's local date at `now` to look through (default 14).
    public var searchDays: Int
    /// At most this many results (default 10).
    public var limit: Int

    public init(
        city: String? = nil, connector: ConnectorType? = nil, minimumPowerKW: Double? = nil, near: Coordinate? = nil,
        searchDays: Int = 14, limit: Int = 10
    ) {
        self.city = city
        self.connector = connector
        self.minimumPowerKW = minimumPowerKW
        self.near = near
        self.searchDays = searchDays
        self.limit = limit
    }

    /// Whether the search considers `socket`, given this filter's ``connector`` already normalized
    /// (`nil` when the filter has none): a search normalizes it once, not once per socket of every
    /// station (its cost is the name's length, which the caller chooses).
    func accepts(_ socket: Socket, connector normalized: String?) -> Bool {
        if let normalized, normalized != socket.connector.normalized { return false }
        if let minimumPowerKW, socket.powerKW < minimumPowerKW { return false }
        return true
    }
}

/// A station's earliest bookable slot.
public struct FreeSlot: Hashable, Codable, Sendable {
    public var slot: Slot
    public var start: Instant
    /// Distance from ``SlotFilter/near``, when given.
    public var distanceKilometres: Double?

    /// Searches each matching station; `read` gives access to the book holding a station.
    ///
    /// Results are nearest first when a location is given, else earliest first; ties by station id.
    /// - Complexity: O(stations × days × 24 × sockets) in the worst case, plus the filter's city
    ///   and connector once each (not once per station or socket).
    static func search(
        _ filter: SlotFilter, rules: Rules, now: Instant,
        read: (Int32, (borrowing SlotBook) -> FreeSlot?) -> FreeSlot?
    ) -> [FreeSlot] {
        let catalog = rules.catalog
        let city = filter.city.map(TextFolding.fold)
        let connector = filter.connector?.normalized
        let near = filter.near.flatMap { $0.isValid ? $0 : nil }
        let days = max(0, min(filter.searchDays, 3_660))
        var found: [FreeSlot] = []
        for (i, station) in catalog.stations.enumerated() {
            if let city, TextFolding.fold(station.city) != city { continue }
            let sockets = station.sockets.indices.filter { filter.accepts(station.sockets[$0], connector: connector) }
            if sockets.isEmpty { continue }
            let index = Int32(i)
            let zone = catalog.zones[Int(catalog.zoneOfStation[i])]
            let today = zone.localDay(at: now.secondsSinceEpoch)
            let hit = read(index) { book in
                for day in today...(today + Int32(days)) {
                    for hour in 0..<24 {
                        for s in sockets {
                            let ref = SlotRef(
                                station: index, socket: catalog.socketBase[i] + Int32(s), day: day, hour: Int32(hour))
                            let status = book.status(ref, now: now.secondsSinceEpoch, rules: rules)
                            if status == .free, let start = catalog.start(of: ref) {
                                return FreeSlot(slot: catalog.slot(ref), start: start, distanceKilometres: nil)
                            }
                            if status == .beyondHorizon { return nil }
                        }
                    }
                }
                return nil
            }
            guard var hit else { continue }
            if let near, let at = station.coordinate {
                hit.distanceKilometres = near.distanceKilometres(to: at)
            }
            found.append(hit)
        }
        found.sort { a, b in
            if near != nil, a.distanceKilometres != b.distanceKilometres {
                return (a.distanceKilometres ?? .infinity) < (b.distanceKilometres ?? .infinity)
            }
            return (a.start, a.slot.station) < (b.start, b.slot.station)
        }
        return Array(found.prefix(max(0, filter.limit)))
    }
}
