extension Replay {
    /// Applies a hold event (`held`, `holdConfirmed`, `holdReleased`), checking only integrity:
    /// a held slot is neither booked nor held by a hold that lives at the hold's `now`; a
    /// confirmed or released hold is the user's current hold of the slot; a confirmation's booking
    /// id comes in sequence.
    static func applyHold(
        _ event: Event, index: Int, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) throws(ReplayError) {
        func fail(_ problem: String) -> ReplayError { ReplayError(index: index, problem: problem) }
        func resolve(_ slot: Slot) throws(ReplayError) -> SlotRef {
            let ref: SlotRef
            do { ref = try rules.catalog.resolve(slot, includingRetired: true) } catch { throw fail(error.description) }
            guard slots.owns(station: Int(ref.station)) else {
                throw fail("slot \(slot) is at a station this shard does not hold")
            }
            guard ref.day >= slots.releasedBefore else { throw fail("slot \(slot) is on a released date") }
            return ref
        }
        func currentHold(_ ref: SlotRef, of user: UserID, _ slot: Slot) throws(ReplayError) -> Int {
            guard let h = Decisions.latestHold(ref, of: user, slots: slots, confirmedToo: false),
                slots.isCurrent(hold: h)
            else { throw fail("user \(user) holds no slot \(slot)") }
            return h
        }
        switch event {
        case .held(let hold):
            let ref = try resolve(hold.slot)
            let now = hold.createdAt.secondsSinceEpoch
            try Replay.checkTimes(
                hold.start, reminder: hold.reminderOffsetSeconds, of: "the hold of \(hold.slot) by user \(hold.user)",
                slot: hold.slot, index: index)
            guard hold.expiresAt > hold.createdAt else {
                throw fail("hold of \(hold.slot) is created at \(hold.createdAt) and expires at \(hold.expiresAt)")
            }
            let page = slots.pageIndex(ref.day)
            guard slots.occupant(ref) == nil, slots.liveHold(ref, now: now) == nil else {
                throw fail("slot \(hold.slot) is already booked or held")
            }
            let record = HoldRecord(
                user: hold.user, start: hold.start.secondsSinceEpoch, createdAt: now,
                expiresAt: hold.expiresAt.secondsSinceEpoch, ref: ref,
                reminder: hold.reminderOffsetSeconds.map { Int32(clamping: $0) } ?? -1, state: .held, booking: -1)
            _ = Decisions.commitHold(
                record, block: page, user: users.findOrInsert(hold.user), slots: &slots, users: &users)
        case .holdConfirmed(let booking):
            let ref = try resolve(booking.slot)
            try Replay.checkTimes(
                booking.start, reminder: booking.reminderOffsetSeconds, of: "booking \(booking.id)",
                slot: booking.slot, index: index)
            let h = try currentHold(ref, of: booking.user, booking.slot)
            let record = slots.records.count
            guard slots.isRestoringAcrossLayouts || slots.bookingID(record: record) == booking.id else {
                throw fail("booking id \(booking.id) is out of sequence; expected \(slots.bookingID(record: record))")
            }
            if slots.isRestoringAcrossLayouts { slots.restore(booking.id) }
            _ = Decisions.commitConfirm(
                h, start: booking.start.secondsSinceEpoch, block: slots.pageIndex(ref.day),
                now: booking.createdAt.secondsSinceEpoch, slots: &slots, users: &users)
        case .holdReleased(let slot, let user, let at):
            let h = try currentHold(try resolve(slot), of: user, slot)
            Decisions.commitRelease(h, now: at.secondsSinceEpoch, slots: &slots, users: &users)
        default:
            throw fail("not a hold event")
        }
    }
}
