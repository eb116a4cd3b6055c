/// Holds in a ``SlotBook``.
///
/// A hold occupies its slot's cell like a booking (the taken bit is set, so the reservation fast
/// path is unchanged for free slots), with the hold's index and ``SlotBook/holdBit`` in the cell.
/// A hold is *current* while its cell still names it: it loses the cell when it is confirmed
/// (the booking takes it), released, or, once expired, when another booking or hold takes the
/// slot. It *lives* while it is current and `now` is before its expiry; an expired hold is free
/// to every call that sees it expired, without anything being written.
extension SlotBook {
    /// The cell bit that marks a hold index rather than a booking record.
    static let holdBit: UInt32 = 1 << 31

    /// The hold index in `ref`'s cell, if a hold is there (live or not), without creating a block.
    @inline(__always)
    func holdIndex(_ ref: SlotRef) -> Int? {
        let socket = local(ref)
        guard socket >= 0, let block = existingBlock(ref.day) else { return nil }
        let cell = cells[Self.cellIndex(word: wordIndex(block: block, socket: socket), hour: Int(ref.hour))]
        return cell & Self.holdBit == 0 ? nil : Int(cell & ~Self.holdBit)
    }

    /// The hold that lives in `ref`'s cell at `now`, if any.
    @inline(__always)
    func liveHold(_ ref: SlotRef, now: Int64) -> Int? {
        guard let h = holdIndex(ref), holds[h].state == .held, Hold.isLive(expiresAt: holds[h].expiresAt, at: now)
        else { return nil }
        return h
    }

    /// Why `ref`'s hour, in its socket-day `word`, refuses a reservation or hold at `now`: a
    /// booking's ``Rejection/Reason/slotTaken``, a live hold's ``Rejection/Reason/slotHeld``, or
    /// `nil` for an hour that is free (not taken, or held by a hold that has expired). The cell
    /// is read only when the word says a hold may be there (``SocketDay/heldFlag``).
    ///
    /// Inlined whole: a call to an out-of-line function taking the book made the caller copy the
    /// whole book (224 bytes) to the stack on every taken slot.
    @inline(__always)
    func takenReason(_ ref: SlotRef, word: SocketDay, now: Int64) -> Rejection.Reason? {
        guard word.isTaken(ref.hour) else { return nil }
        guard word.mayHoldHours, let h = holdIndex(ref) else { return .slotTaken }
        let hold = holds[h]
        return hold.state == .held && Hold.isLive(expiresAt: hold.expiresAt, at: now) ? .slotHeld : nil
    }

    /// Whether hold `h` is current: its cell still names it.
    func isCurrent(hold h: Int) -> Bool {
        holds[h].state == .held && holdIndex(holds[h].ref) == h
    }

    /// Marks `ref` held by hold `h`.
    mutating func occupy(_ ref: SlotRef, block: Int, hold h: Int) {
        let w = wordIndex(ref, block: block)
        words[w].setTaken(ref.hour, true)
        words[w].markHeld()
        cells[Self.cellIndex(word: w, hour: Int(ref.hour))] = UInt32(truncatingIfNeeded: h) | Self.holdBit
    }

    /// The id under which hold `h` sits in its user's list in the ``UserBook``: the epoch
    /// ``holdEpoch``, which no booking id uses, then this book's shard and the hold's index.
    func holdEntryID(_ h: Int) -> BookingID {
        BookingID(Self.holdEpoch << Self.epochShift | shard << Self.shardShift | UInt64(h &+ 1))
    }

    /// The booking-id epoch of hold entries; restores never assign it (see `RestorePlan`).
    static let holdEpoch: UInt64 = 0xFFE

    /// Whether a user-list entry's id is a hold's (``holdEntryID(_:)``), not a booking's.
    static func isHoldEntry(_ id: BookingID) -> Bool { id.rawValue >> epochShift == holdEpoch }

    func hold(_ h: Int, catalog: Catalog) -> Hold {
        let r = holds[h]
        return Hold(
            slot: catalog.slot(r.ref), user: r.user, start: Instant(r.start), createdAt: Instant(r.createdAt),
            expiresAt: Instant(r.expiresAt), reminderOffsetSeconds: r.reminder < 0 ? nil : Int64(r.reminder))
    }

    /// The current holds (live or expired but not yet overtaken), by slot.
    ///
    /// - Complexity: O(*h* + *c* log *c*) in the holds stored (not released) and the current ones.
    func currentHolds(catalog: Catalog) -> [Hold] {
        holds.indices.filter { isCurrent(hold: $0) }.map { hold($0, catalog: catalog) }.sorted { $0.slot < $1.slot }
    }
}

/// One hold as stored.
struct HoldRecord: StoredRecord, Equatable {
    var user: UserID
    var start: Int64
    var createdAt: Int64
    var expiresAt: Int64
    var ref: SlotRef
    /// Reminder offset in seconds for the booking, or -1 for none.
    var reminder: Int32
    var state: State
    /// The booking record its confirmation made, or -1.
    var booking: Int32

    enum State: UInt8, Sendable { case held, confirmed, released }

    /// A released hold dated before every date, of nobody's, for no booking.
    static let released = HoldRecord(
        user: 0, start: 0, createdAt: 0, expiresAt: 0, ref: SlotRef(station: 0, socket: 0, day: .min, hour: 0),
        reminder: -1, state: .released, booking: -1)
}

/// A user and a slot: the key of a user's latest hold of that slot.
struct HoldKey: Hashable, Sendable {
    var user: UserID
    var ref: SlotRef
}
