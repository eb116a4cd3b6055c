import SlotScheduler

/// Wrong refusals of lifecycle operations in a threads-mode history (I13, I14): an any-socket
/// request refused `noMatchingSocketFree`, or a reschedule refused `slotTaken` / `slotHeld`,
/// while a slot it could take was certainly free and open for the whole call. Ordinary
/// reservations' refusals are checked by the per-slot linearizability partitions (I11); these
/// calls name several slots, or are refused for holds the partitions do not see, so they are
/// checked here, as conservatively: anything that could have been in a slot at any moment of the
/// call, in any order of the concurrent operations, keeps the refusal unflagged.
extension ThreadsAnalysis {
    /// Something that may have occupied a cell: from the invocation of the operation that may
    /// have put it there until the completion of the first that certainly took it away (`.max`:
    /// nothing did); a hold only while the refused call's `now` is before its expiry.
    struct Occupant {
        var from: Int64
        var until: Int64
        /// The booking, or 0 for a hold.
        var booking: UInt64
        var expiry: Int64 = .max

        /// Whether it could have been in its cell at some moment of `op`.
        func couldBlock(_ op: TimedOperation) -> Bool {
            from <= op.complete && until >= op.invoke && op.now < expiry
        }
    }

    /// Everything that may have occupied each cell: every stay of a booking (see ``segments``),
    /// every accepted hold until its holder's first confirm or release begun after it and
    /// accepted, and every operation of unknown outcome that could have taken a cell (a hold, a
    /// reservation, a confirm, a move; an any-socket request in every socket it could be given),
    /// from its invocation on.
    func occupants(_ segments: [Segment]) -> [Int32: [Occupant]] {
        var byCell: [Int32: [Occupant]] = [:]
        for s in segments {
            byCell[s.cell, default: []].append(
                Occupant(
                    from: history[s.placedBy].invoke, until: s.endedBy.map { history[$0].complete } ?? .max,
                    booking: s.booking))
        }
        // Accepted holds per cell: user, completion, and place in the cell's list.
        var holdsOf: [Int32: [(user: UInt64, done: Int64, k: Int)]] = [:]
        for op in history where op.cell >= 0 {
            switch (op.kind, op.outcome) {
            case (.hold, -1), (.hold, -2):
                if op.outcome == -1 {
                    holdsOf[op.cell, default: []].append((op.user, op.complete, byCell[op.cell, default: []].count))
                }
                byCell[op.cell, default: []].append(
                    Occupant(from: op.invoke, until: .max, booking: 0, expiry: rules.holdExpiry(madeAt: op.now)))
            case (.confirm, -1), (.releaseHold, -1):
                // Ends its user's hold of the cell made before it began (a user holds a slot once).
                for hold in holdsOf[op.cell] ?? [] where hold.user == op.user && op.invoke > hold.done {
                    if byCell[op.cell]?[hold.k].until == .max { byCell[op.cell]?[hold.k].until = op.complete }
                }
            case (.anySocket, -2):
                for cell in p.anySocketCells(of: op) {
                    byCell[cell, default: []].append(Occupant(from: op.invoke, until: .max, booking: 0))
                }
            case (.reserve, -2), (.confirm, -2), (.reschedule, -2):
                byCell[op.cell, default: []].append(
                    Occupant(from: op.invoke, until: .max, booking: op.kind == .reschedule ? op.booking : 0))
            default: break
            }
        }
        return byCell
    }

    /// I13: no any-socket request is refused `noMatchingSocketFree` while a matching socket was
    /// certainly open and free for its whole call; I14: no reschedule is refused `slotTaken` or
    /// `slotHeld` while its new slot was certainly free (of everything but the booking itself).
    mutating func checkWrongRefusals(_ segments: [Segment]) {
        let wrong = history.indices.filter {
            let op = history[$0]
            return op.kind == .anySocket && op.reason == .noMatchingSocketFree
                || op.kind == .reschedule && (op.reason == .slotTaken || op.reason == .slotHeld)
        }
        guard !wrong.isEmpty else { return }
        let byCell = occupants(segments)
        let availability = AvailabilityHistory(p, history: history)
        func free(_ cell: Int32, during op: TimedOperation, except booking: UInt64) -> Bool {
            !(byCell[cell] ?? []).contains { ($0.booking == 0 || $0.booking != booking) && $0.couldBlock(op) }
        }
        for i in wrong {
            let op = history[i]
            if op.kind == .anySocket {
                let open = p.anySocketCells(of: op).first {
                    p.starts[Int($0)] != Int64.min && availability.certainlyOpen(cell: $0, during: op)
                        && free($0, during: op, except: 0)
                }
                guard let open else { continue }
                violate(
                    .I13, at: i,
                    "an any-socket request of user \(op.user) was refused noMatchingSocketFree while \(p.slot(ofCell: open)) matched it and was open and free for the whole call"
                )
            } else if op.cell >= 0, op.booking != 0, free(op.cell, during: op, except: op.booking) {
                violate(
                    .I14, at: i,
                    "moving booking \(op.booking) to \(p.slot(ofCell: op.cell)) was refused \(Reasons.name(op.outcome)) while nothing could be in that slot for the whole call"
                )
            }
        }
    }
}

extension PreparedScenario {
    /// The cells an any-socket request could be given: the sockets of the station it named with
    /// the connector of the socket it names and at least its power, at its date and hour, in
    /// catalog order.
    func anySocketCells(of op: TimedOperation) -> [Int32] {
        guard op.requestedCell >= 0, Int(op.requestedCell) < cellCount else { return [] }
        let ref = refs[Int(op.requestedCell)]
        let sockets = rules.catalog.stations[Int(ref.station)].sockets
        let want = slot(ofCell: op.requestedCell)
        guard let asked = sockets.firstIndex(where: { $0.id == want.socket }) else { return [] }
        let base = ref.socket - Int32(asked)
        let connector = sockets[asked].connector.normalized
        return sockets.indices.filter {
            ModelRules.serves(sockets[$0], connector: connector, minimumPowerKW: op.minimumPowerKW)
        }.map { cell(socket: base + Int32($0), day: ref.day, hour: ref.hour) }
    }
}
