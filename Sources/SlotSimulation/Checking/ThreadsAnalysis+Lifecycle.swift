import SlotScheduler

/// The lifecycle checks of a threads-mode history (issue 16): where bookings were as they were
/// moved, and I13-I14 on moves and any-socket answers. Holds (I15-I17) are checked in the
/// linearizability partitions, against the specifications (``ThreadsAnalysis+Holds.swift``).
extension ThreadsAnalysis {
    /// One stay of a booking in one cell: from the completion of the operation that put it there
    /// (`placedBy`) until the invocation of the one that took it away (`endedBy`: a move, a cancel
    /// or an availability change), if any.
    struct Segment {
        var booking: UInt64
        var user: UInt64
        var cell: Int32
        var placedBy: Int
        var from: Int64
        var endedBy: Int?
        var to: Int64
    }

    /// Fills ``placements`` and ``movedFrom``. A booking's own operations come from
    /// one worker, one at a time, so its accepted reschedules in history order are the order it
    /// moved in; a reschedule that left it in its cell (a repeat) moves nothing.
    mutating func findPlacements(made: [UInt64: Int]) {
        placements = made.mapValues { [$0] }
        for (i, op) in history.enumerated() where op.outcome == -1 {
            guard op.kind == .reschedule, op.cell >= 0, let list = placements[op.booking], let last = list.last
            else { continue }
            let from = history[last].cell
            guard from != op.cell else { continue }
            placements[op.booking]?.append(i)
            movedFrom[i] = from
        }
    }

    /// Every booking's stays, in booking order.
    func segments(releasedAt: [UInt64: Int]) -> [Segment] {
        var segments: [Segment] = []
        for booking in placements.keys.sorted() {
            guard let list = placements[booking], let first = list.first else { continue }
            let user = history[first].user
            for (k, i) in list.enumerated() {
                let end = k + 1 < list.count ? list[k + 1] : releasedAt[booking]
                segments.append(
                    Segment(
                        booking: booking, user: user, cell: history[i].cell, placedBy: i, from: history[i].complete,
                        endedBy: end, to: end.map { history[$0].invoke } ?? .max))
            }
        }
        return segments
    }

    /// I13 and I14 on the history: any-socket answers, and moves only by their booking's owner.
    mutating func checkLifecycle(made: [UInt64: Int]) {
        checkAnySocketAnswers(made: made)
        for (i, op) in history.enumerated() where op.kind == .reschedule && op.outcome == -1 {
            if let m = made[op.booking], history[m].user != op.user {
                violate(.I14, at: i, "user \(op.user) moved booking \(op.booking) of user \(history[m].user)")
            }
        }
    }

    /// I13: an accepted any-socket request was given a socket of the station, date and hour it
    /// named, with its connector and at least its power (one of `anySocketCells(of:)`).
    mutating func checkAnySocketAnswers(made: [UInt64: Int]) {
        for (i, op) in history.enumerated() where op.kind == .anySocket && op.outcome == -1 {
            guard op.requestedCell >= 0 else { continue }
            let want = p.slot(ofCell: op.requestedCell)
            let station = p.rules.catalog.station(want.station)
            let asked = station?.sockets.first { $0.id == want.socket }
            guard op.cell >= 0 else {
                violate(.I13, at: i, "an any-socket request at \(want) was given a socket outside the scenario")
                continue
            }
            if !p.anySocketCells(of: op).contains(op.cell) {
                let got = p.slot(ofCell: op.cell)
                violate(
                    .I13, at: i,
                    "an any-socket request for \(asked?.connector.rawValue ?? "?") ≥ \(op.minimumPowerKW) kW at \(want.station) \(want.date) \(want.hour):00 was given \(got)"
                )
            }
        }
    }
}
