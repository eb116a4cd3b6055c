import SlotScheduler

/// Resources that move (issue 40): a check-out that carries a place (``TimedOperation/leftAt``)
/// leaves its booking's station there, a relocation of the store's catalog.
extension ThreadsAnalysis {
    /// I21: after the run, each station a check-out moved is where a check-out that may have
    /// moved it last left it. A move may be the last if no accepted move of the same station
    /// began after it returned; accepted moves and moves whose outcome is unknown are candidates,
    /// refused ones are not. (A station no accepted check-out moved is not judged: a durable
    /// store's catalog may hold an earlier run's moves.)
    ///
    /// - Parameter catalog: the store's catalog after the run.
    mutating func checkPlaces(in catalog: Catalog) {
        var moves: [StationID: [Int]] = [:]
        for (i, op) in history.enumerated() where op.kind == .checkOut && op.leftAt != nil && op.outcome < 0 {
            guard let station = finalBookings[id: op.booking]?.slot.station else { continue }
            moves[station, default: []].append(i)
        }
        for station in p.rules.catalog.stations {
            let ops = moves[station.id] ?? []
            guard let lastStart = ops.filter({ history[$0].outcome == -1 }).map({ history[$0].invoke }).max() else {
                continue
            }
            let allowed = ops.filter { history[$0].complete >= lastStart }.map { history[$0].leftAt }
            let place = catalog.station(station.id)?.coordinate
            guard !allowed.contains(place) else { continue }
            violate(
                .I21, at: ops[ops.count - 1],
                "station \(station.id) is at \(Coordinate.describe(place)) after the run, where the check-outs "
                    + "that could have moved it last left it at "
                    + allowed.map(Coordinate.describe).joined(separator: " or "))
        }
    }
}
