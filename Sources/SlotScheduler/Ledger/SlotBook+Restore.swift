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

    /// Scans `events` as a store with `shardCount` shards (a station's shard is its catalog
    /// index modulo the count) would replay them. Across layouts it checks what replay cannot:
    /// the ids of each epoch and shard that wrote them come 1, 2, 3, … in order, so a journal
    /// with an event missing, or an id reserved twice, is refused, not restored.
    ///
    /// - Complexity: O(*n*) for *n* events.
    init(_ events: [Event], catalog: Catalog, shardCount: Int) throws(ReplayError) {
        var next = [UInt64](repeating: 1, count: shardCount)
        for event in events {
            guard case .reserved(let booking) = event, let station = catalog.stationIndex[booking.slot.station]
            else { continue }
            let shard = Int(station) % shardCount
            if booking.id.rawValue != UInt64(shard) << SlotBook.shardShift | next[shard] {
                acrossLayouts = true
                break
            }
            next[shard] += 1
        }
        guard acrossLayouts else { return }
        var nextInGroup: [UInt64: UInt64] = [:]
        var maxEpoch: UInt64 = 0
        for (index, event) in events.enumerated() {
            guard case .reserved(let booking) = event else { continue }
            let group = booking.id.rawValue >> SlotBook.shardShift
            let expected = nextInGroup[group, default: 1]
            guard booking.id.rawValue == group << SlotBook.shardShift | expected else {
                throw ReplayError(
                    index: index,
                    problem:
                        "booking id \(booking.id) is out of sequence; expected \(group << SlotBook.shardShift | expected)"
                )
            }
            nextInGroup[group] = expected + 1
            maxEpoch = max(maxEpoch, booking.id.rawValue >> SlotBook.epochShift)
        }
        guard maxEpoch + 1 < SlotBook.restoringEpoch else {
            throw ReplayError(index: 0, problem: "booking ids use epoch \(maxEpoch); no epoch is left for new ids")
        }
        nextEpoch = maxEpoch + 1
    }
}
