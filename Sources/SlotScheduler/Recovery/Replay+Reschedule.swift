extension Replay {
    /// Applies a recorded move without re-deciding it: checks only integrity (the booking active,
    /// of that user, at `from`; `to` at the same station and free or its own) and a valid
    /// request id.
    static func applyMove(
        _ move: BookingMove, at: Instant, index: Int, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) throws(ReplayError) {
        func fail(_ problem: String) -> ReplayError { ReplayError(index: index, problem: problem) }
        guard let record = slots.record(of: move.booking), slots.records[record].status == .active,
            slots.records[record].user == move.user
        else { throw fail("booking \(move.booking) of user \(move.user) is not active") }
        let from: SlotRef
        let to: SlotRef
        do {
            from = try rules.catalog.resolve(move.from, includingRetired: true)
            to = try rules.catalog.resolve(move.to, includingRetired: true)
        } catch { throw fail(error.description) }
        guard slots.records[record].ref == from else {
            throw fail("booking \(move.booking) is not at \(move.from)")
        }
        guard to.station == from.station else { throw fail("booking \(move.booking) moves to another station") }
        if let id = move.requestID, let expected = IdentifierRule.problem(in: id.rawValue) {
            throw fail("request id \(IdentifierRule.shortened(id.rawValue).debugDescription): expected \(expected)")
        }
        try Replay.checkTimes(move.start, reminder: nil, of: "booking \(move.booking)", slot: move.to, index: index)
        let block = slots.pageIndex(to.day)
        if let occupant = slots.occupant(to), occupant != record { throw fail("slot \(move.to) is already booked") }
        Decisions.move(
            record, to: to, start: move.start.secondsSinceEpoch, block: block, requestID: move.requestID,
            now: at.secondsSinceEpoch, slots: &slots, users: &users)
    }
}
