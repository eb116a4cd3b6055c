import SlotScheduler

/// Local time for the ``ReferenceModel``: where a slot starts and which date it is at a station.
///
/// The model's one borrowed piece. The property tests give it a brute-force clock over
/// Foundation's `TimeZone` (independent of the library's zone tables); the simulator gives it
/// ``CatalogClock``, the catalog's own conversion, because its scenarios use any zone.
package protocol ModelClock: Sendable {
    /// The instant `slot` starts, or `nil` when its local time does not exist (a DST gap).
    func start(of slot: Slot) -> Int64?
    /// The local date (day number) at `station` at `instant`.
    func localDay(of station: StationID, at instant: Int64) -> Int32
}

/// The catalog's time-zone conversion, looked up by id in O(1) (a station's sockets are indexed
/// once, not searched per slot).
package struct CatalogClock: ModelClock {
    struct SocketKey: Hashable {
        var station: StationID
        var socket: SocketID
    }
    let catalog: Catalog
    /// Per (station, socket): the station's catalog index and the socket's index in the station.
    let index: [SocketKey: (station: Int, socket: Int)]
    let stationIndex: [StationID: Int32]

    package init(_ catalog: Catalog) {
        self.catalog = catalog
        var index: [SocketKey: (station: Int, socket: Int)] = [:]
        var stationIndex: [StationID: Int32] = [:]
        for station in catalog.stations {
            // The station's catalog index, which is not its place in `stations` once a catalog
            // change retired a station before it.
            guard let first = station.sockets.first,
                let s =
                    (try? catalog.resolve(
                        Slot(station: station.id, socket: first.id, date: LocalDate(dayNumber: 0), hour: 0)))
                    .map({ Int($0.station) })
            else { continue }
            if stationIndex[station.id] == nil { stationIndex[station.id] = Int32(s) }
            for (k, socket) in station.sockets.enumerated() {
                let key = SocketKey(station: station.id, socket: socket.id)
                if index[key] == nil { index[key] = (s, k) }
            }
        }
        self.index = index
        self.stationIndex = stationIndex
    }

    package func start(of slot: Slot) -> Int64? {
        guard let at = index[SocketKey(station: slot.station, socket: slot.socket)],
            let ref = catalog.slot(station: at.station, socket: at.socket, date: slot.date, hour: slot.hour)
        else { return nil }
        return catalog.start(of: ref)?.secondsSinceEpoch
    }

    package func localDay(of station: StationID, at instant: Int64) -> Int32 {
        guard let s = stationIndex[station] else { return Int32.min }
        return catalog.localDate(ofStation: s, at: Instant(secondsSinceEpoch: instant)).dayNumber
    }
}
