/// Restoring from events written with another shard layout.
///
/// A booking id is `epoch << 52 | shard << 40 | n` for the book's *n*-th id in that epoch: the
/// book that assigned it finds it by arithmetic. Events from a ``Scheduler`` with another shard count (or from a ``Ledger``
/// into a ``Scheduler``, and back) carry ids another layout assigned, which clients already
/// hold, so they are kept: each restored record's id is stored (`restoredIDs`, and the inverse
/// `restoredRecords`), and the ids assigned afterwards start a new epoch, above every epoch the
/// events use, so they can never equal a restored one. A restore within the same layout stores
/// nothing.
extension SlotBook {
    /// The epoch no assigned id uses: while restoring across layouts, no id decodes natively.
    static let restoringEpoch: UInt64 = 0xFFF

    var isRestoringAcrossLayouts: Bool { idPrefix >> Self.epochShift == Self.restoringEpoch }

    /// Starts a restore across layouts: every record restored from now on keeps its id.
    mutating func beginRestoringAcrossLayouts() {
        idPrefix = Self.restoringEpoch << Self.epochShift | shard << Self.shardShift
    }

    /// Ends a restore across layouts: new ids are native again, in `epoch`.
    mutating func finishRestoring(epoch: UInt64) {
        idPrefix = epoch << Self.epochShift | shard << Self.shardShift
    }

    /// Gives the next record (about to be appended) the restored `id`.
    mutating func restore(_ id: BookingID) {
        restoredRecords[id] = Int32(truncatingIfNeeded: restoredIDs.count)
        restoredIDs.append(id)
    }
}

/// Whether events can be replayed with the ids the layout would assign, or must keep theirs.
struct RestorePlan {
    /// Some reserved event's id is not the one this layout assigns next.
    var acrossLayouts = false
    /// The epoch for ids assigned after the restore: above every epoch in the events.
    var nextEpoch: UInt64 = 0
    /// Within the layout, from a snapshot after a release: the ids the snapshot lacks (released
    /// ones) must be skipped, so later ids keep their numbers.
    var skipsReleasedIDs = false
    /// Across layouts, from a snapshot after a release: the snapshot's ``Snapshot/lastIDs``
    /// as group (epoch and shard) → highest number.
    var releasedHighWater: [UInt64: UInt64] = [:]

    /// Scans `events` (a snapshot's events, then the journal's) as a store with `shardCount`
    /// shards (a station's shard is its catalog index modulo the count) would replay them.
    /// Across layouts it checks what replay cannot: the ids of each epoch and shard that wrote
    /// them come 1, 2, 3, … in order, so a journal with an event missing, or an id reserved
    /// twice, is refused, not restored. Within a snapshot that released bookings the ids only
    /// increase (the released ones are missing), and the journal after it continues from the
    /// snapshot's ``Snapshot/lastIDs``.
    ///
    /// - Complexity: O(*n*) for *n* events.
    init(_ events: [Event], snapshot: Snapshot, catalog: Catalog, shardCount: Int) throws(ReplayError) {
        try Self.checkNumbers(events, lastIDs: snapshot.lastIDs ?? [])
        let gapsBefore = snapshot.lastIDs == nil ? 0 : snapshot.events.count
        let lastIDs = snapshot.lastIDs ?? []
        let mask: UInt64 = (1 << SlotBook.shardShift) - 1
        var next = [UInt64](repeating: 1, count: shardCount)
        for (index, event) in events.enumerated() {
            if index == gapsBefore {
                for id in lastIDs {
                    let group = Int(truncatingIfNeeded: id.rawValue >> SlotBook.shardShift)
                    guard group < shardCount else {
                        acrossLayouts = true
                        break
                    }
                    next[group] = max(next[group], (id.rawValue & mask) + 1)
                }
                if acrossLayouts { break }
            }
            guard let booking = event.madeBooking, let station = catalog.stationIndex[booking.slot.station]
            else { continue }
            let shard = Int(station) % shardCount
            let number = booking.id.rawValue & mask
            let inSequence = index < gapsBefore ? number >= next[shard] : number == next[shard]
            if booking.id.rawValue >> SlotBook.shardShift != UInt64(shard) || !inSequence {
                acrossLayouts = true
                break
            }
            next[shard] = number + 1
        }
        if !acrossLayouts, gapsBefore >= events.count {
            acrossLayouts = lastIDs.contains { $0.rawValue >> SlotBook.shardShift >= UInt64(shardCount) }
        }
        guard acrossLayouts else {
            skipsReleasedIDs = snapshot.lastIDs != nil
            return
        }
        var nextInGroup: [UInt64: UInt64] = [:]
        var maxEpoch: UInt64 = 0
        for id in lastIDs {
            releasedHighWater[id.rawValue >> SlotBook.shardShift] = id.rawValue & mask
            maxEpoch = max(maxEpoch, id.rawValue >> SlotBook.epochShift)
        }
        for (index, event) in events.enumerated() {
            if index == gapsBefore {
                for (group, highest) in releasedHighWater {
                    nextInGroup[group] = max(nextInGroup[group, default: 1], highest + 1)
                }
            }
            guard let booking = event.madeBooking else { continue }
            let group = booking.id.rawValue >> SlotBook.shardShift
            let expected = nextInGroup[group, default: 1]
            let number = booking.id.rawValue & mask
            guard index < gapsBefore ? number >= expected : number == expected else {
                throw ReplayError(
                    index: index,
                    problem:
                        "booking id \(booking.id) is out of sequence; expected \(group << SlotBook.shardShift | expected)"
                )
            }
            nextInGroup[group] = number + 1
            maxEpoch = max(maxEpoch, booking.id.rawValue >> SlotBook.epochShift)
        }
        guard maxEpoch + 1 < SlotBook.holdEpoch else {
            throw ReplayError(index: 0, problem: "booking ids use epoch \(maxEpoch); no epoch is left for new ids")
        }
        nextEpoch = maxEpoch + 1
    }

    /// Refuses an id whose number (its record index, within its epoch and shard) would leave a
    /// book too few record indices: restored within a layout, a record's index is its id's number.
    private static func checkNumbers(_ events: [Event], lastIDs: [BookingID]) throws(ReplayError) {
        let mask: UInt64 = (1 << SlotBook.shardShift) - 1
        let limit = UInt64(SlotBook.restorableNumberLimit)
        for (index, event) in events.enumerated() {
            if let id = event.madeBooking?.id, id.rawValue & mask > limit {
                throw ReplayError(
                    index: index, problem: "booking id \(id) is numbered beyond the \(limit) a book holds")
            }
        }
        if let id = lastIDs.first(where: { $0.rawValue & mask > limit }) {
            throw ReplayError(index: 0, problem: "last id \(id) is numbered beyond the \(limit) a book holds")
        }
    }
}
