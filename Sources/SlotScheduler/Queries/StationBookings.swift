/// The active bookings of one station that start in a window of time: what a charger should hold
/// reserved soon (the OCPP bridge asks for the next minutes), read cell by cell, so the cost grows
/// with the window's days and the station's sockets, never with the history.
extension SlotBook {
    /// Active bookings of `station` (a catalog index this book owns) whose start lies in
    /// `window`, by start, then socket.
    func bookings(station: Int32, startingIn window: Range<Int64>, catalog: Catalog) -> [Booking] {
        guard !window.isEmpty, !dayBlock.isEmpty else { return [] }
        // A local day holds the starts of at most 26 hours (a DST fall-back): the days around the
        // window's ends cover every start in it. Only days this book has stored can hold a
        // booking, so a window of centuries costs no more than the days stored.
        let first = catalog.localDate(ofStation: station, at: Instant(window.lowerBound)).dayNumber
        let last = catalog.localDate(ofStation: station, at: Instant(window.upperBound &- 1)).dayNumber
        let stored = Int64(firstDay)...(Int64(firstDay) + Int64(dayBlock.count) - 1)
        let from = max(Int64(first) - 1, stored.lowerBound)
        let to = min(Int64(last) + 1, stored.upperBound)
        guard from <= to else { return [] }
        var found: [Booking] = []
        for day in Int32(from)...Int32(to) {
            for socket in catalog.socketsOfStation[Int(station)] {
                let local = Int(localSocket[Int(socket)])
                for hour in 0..<24 {
                    guard let record = occupant(localSocket: local, day: day, hour: hour) else { continue }
                    let booking = booking(record: record, catalog: catalog)
                    if booking.status == .active, window.contains(booking.start.secondsSinceEpoch) {
                        found.append(booking)
                    }
                }
            }
        }
        return found.sorted { ($0.start, $0.slot) < ($1.start, $1.slot) }
    }
}

extension Scheduler {
    /// The active bookings of `station` whose start lies in `window`, by start, then socket:
    /// what its chargers should hold reserved. Read under the station's lock; the cost grows with
    /// the days the window spans and the station's sockets, not with the history.
    /// An unknown station has none.
    public func bookings(at station: StationID, startingIn window: Range<Instant>) -> [Booking] {
        let catalog = rules.catalog
        guard let index = catalog.stationIndex[station] else { return [] }
        let range = window.lowerBound.secondsSinceEpoch..<window.upperBound.secondsSinceEpoch
        return shards.withLock(shard(of: index)) { $0.bookings(station: index, startingIn: range, catalog: catalog) }
    }
}
