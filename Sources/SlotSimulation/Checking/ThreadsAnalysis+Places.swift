import SlotScheduler

/// Resources that move (issue 40): a check-out that carries a place (``TimedOperation/leftAt``)
/// leaves its booking's station there, a relocation of the store's catalog.
extension ThreadsAnalysis {
    /// I21: after the run, each station a check-out moved is where a check-out that may have
    /// moved it last left it (``LastMove``). (A station no accepted check-out moved is not
    /// judged: a durable store's catalog may hold an earlier run's moves.)
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
            let candidates = ops.map { i in
                LastMove.Move(
                    start: history[i].invoke, end: history[i].complete,
                    accepted: history[i].outcome == -1, place: history[i].leftAt)
            }
            guard let allowed = LastMove.candidates(candidates) else { continue }
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
