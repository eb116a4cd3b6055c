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
        let search = Search(filter, rules: rules, now: now)
        var found: [FreeSlot] = []
        for candidate in search.candidates {
            let hit = read(candidate.station) { book in
                for day in search.days(of: candidate) {
                    let scan = search.scan(candidate, day: day) { socket, hour in
                        let ref = SlotRef(
                            station: candidate.station,
                            socket: rules.catalog.socket(ofStation: candidate.station, at: socket), day: day,
                            hour: Int32(hour))
                        return book.status(ref, now: now.secondsSinceEpoch, rules: rules)
                    }
                    switch scan {
                    case .found(let slot): return slot
                    case .stop: return nil
                    case .nothing: continue
                    }
                }
                return nil
            }
            if let hit { found.append(hit) }
        }
        return search.ranked(found)
    }

    /// One search's plan, whoever holds the books: the matching stations with their sockets, the
    /// days to look through, the scan of one day, and the ranking of what was found. The
    /// ``Scheduler`` reads the statuses from its books; a store without a search of its own,
    /// from its day views (``BookingService/earliestFreeSlotsFromDayViews(matching:at:)``).
    struct Search: Sendable {
        /// A station the filter accepts (catalog index), its accepted sockets (indices within the
        /// station) and its local date at `now` (day number).
        struct Candidate: Sendable {
            var station: Int32
            var sockets: [Int]
            var today: Int32
        }

        /// What one day of a candidate gave: its earliest free slot, the end of its search (a
        /// slot beyond the horizon), or neither.
        enum Scan: Equatable {
            case found(FreeSlot)
            case stop
            case nothing
        }

        let rules: Rules
        let near: Coordinate?
        let limit: Int
        let searchDays: Int32
        let candidates: [Candidate]

        init(_ filter: SlotFilter, rules: Rules, now: Instant) {
            let catalog = rules.catalog
            let city = filter.city.map(TextFolding.fold)
            let connector = filter.connector?.normalized
            self.rules = rules
            near = filter.near.flatMap { $0.isValid ? $0 : nil }
            limit = max(0, filter.limit)
            searchDays = Int32(max(0, min(filter.searchDays, 3_660)))
            candidates = catalog.layout.enumerated().compactMap { i, station in
                if let city, TextFolding.fold(station.city) != city { return nil }
                let sockets = station.sockets.indices.filter {
                    filter.accepts(station.sockets[$0], connector: connector)
                }
                if sockets.isEmpty { return nil }
                let zone = catalog.zones[Int(catalog.zoneOfStation[i])]
                return Candidate(station: Int32(i), sockets: sockets, today: zone.localDay(at: now.secondsSinceEpoch))
            }
        }

        /// The days a candidate's search looks through, from its local date at `now`.
        func days(of candidate: Candidate) -> ClosedRange<Int32> { candidate.today...(candidate.today + searchDays) }

        /// One day of `candidate`, hour by hour and socket by socket in catalog order, with
        /// `status(socket index within the station, hour)`: the first free slot, or a stop at
        /// the first slot beyond the horizon.
        func scan(_ candidate: Candidate, day: Int32, status: (Int, Int) -> SlotStatus) -> Scan {
            let catalog = rules.catalog
            for hour in 0..<24 {
                for socket in candidate.sockets {
                    let slotStatus = status(socket, hour)
                    let ref = SlotRef(
                        station: candidate.station,
                        socket: rules.catalog.socket(ofStation: candidate.station, at: socket), day: day,
                        hour: Int32(hour))
                    if slotStatus == .free, let start = catalog.start(of: ref) {
                        return .found(FreeSlot(slot: catalog.slot(ref), start: start, distanceKilometres: nil))
                    }
                    if slotStatus == .beyondHorizon { return .stop }
                }
            }
            return .nothing
        }

        /// `found` with distances, nearest first when the filter gives a place, else earliest
        /// first; ties by station id; at most the filter's limit.
        func ranked(_ found: [FreeSlot]) -> [FreeSlot] {
            let hits = found.map { hit in
                var hit = hit
                if let near, let at = rules.catalog.station(hit.slot.station)?.coordinate {
                    hit.distanceKilometres = near.distanceKilometres(to: at)
                }
                return hit
            }
            let sorted = hits.sorted { a, b in
                if near != nil, a.distanceKilometres != b.distanceKilometres {
                    return (a.distanceKilometres ?? .infinity) < (b.distanceKilometres ?? .infinity)
                }
                return (a.start, a.slot.station) < (b.start, b.slot.station)
            }
            return Array(sorted.prefix(limit))
        }
    }
}
