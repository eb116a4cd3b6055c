/// Retention: releasing the days before a cutoff (see the StateAndRestarts article).
///
/// A released day has no block (its block goes to `freeBlocks` for a later day to reuse), its
/// records are no longer held (``SlotBook/isReleased(record:)``: a record index below
/// `records.base`, or a record dated before `releasedBefore`), and each chunk of `records` whose
/// records are all released is freed (``RecordColumn``). Booking
/// ids keep their record index, so a released id is still known to be released.
extension SlotBook {
    /// An active booking a release took away from its user's limit.
    struct ReleasedBooking: Sendable {
        var user: UserID
        var booking: BookingID
    }

    /// A request id a release made the users' book forget.
    struct ForgottenRequest: Sendable {
        var key: UserBook.RequestKey
        var booking: BookingID
    }

    /// Releases the days before day number `cutoff` (the caller checked that it is safe).
    ///
    /// - Returns: the active bookings and unconfirmed holds released, for their users' books to
    ///   drop, and the request ids of the records no longer stored, for the users' books to forget.
    /// - Complexity: O(*d* · sockets · 24 + *r* + *h*) for *d* released days with blocks, *r* records
    ///   newly found released at the front, amortised (the copies that drop stored records and
    ///   that compact blocks are made only once the released part is a quarter, or half, of them),
    ///   *h* holds (`releaseHolds`), the request ids and check-ins held (`forgetReleasedRecords`),
    ///   and the records and holds stored (`freeReleasedChunks`).
    mutating func releaseDays(before cutoff: Int32) -> (active: [ReleasedBooking], requests: [ForgottenRequest]) {
        guard cutoff > releasedBefore else { return ([], []) }
        let previous = releasedBefore
        var active: [ReleasedBooking] = []
        let end = min(max(0, Int(cutoff) - Int(firstDay)), dayBlock.count)
        let perBlock = cellsPerBlock
        for i in 0..<end where dayBlock[i] >= 0 {
            let first = Int(dayBlock[i]) * perBlock
            // (A hold's cell: `releaseHolds` finds its hold.)
            for cell in first..<(first + perBlock) {
                guard let record = Self.record(inCell: cells[cell]) else { continue }
                active.append(ReleasedBooking(user: records[record].user, booking: bookingID(record: record)))
            }
            freeBlocks.append(dayBlock[i])
        }
        if end > 0 {
            dayBlock.removeFirst(end)
            firstDay += Int32(end)
        }
        releasedBefore = cutoff
        let requests = forgetReleasedRecords(before: cutoff)
        var index = max(releaseScan, records.base)
        while index < records.count, records[index].ref.day < cutoff { index += 1 }
        releaseScan = index
        records.drop(before: index)
        active += releaseHolds(from: previous, before: cutoff)
        freeReleasedChunks(before: cutoff)
        pruneReminders()
        journalBase += journal.count
        journal.removeAll()
        changes.removeAll()
        moves.removeAll()
        firstMove.removeAll()
        if freeBlocks.count * 2 > words.count / max(1, regular.count) { compactBlocks() }
        return (active, requests)
    }

    /// Forgets the request ids and check-ins of the records dated before `cutoff`, wherever they
    /// are stored (behind a record still held too), in record order.
    /// - Returns: the request ids forgotten, for the users' books to forget.
    /// - Complexity: O(*q* + *c* + *r* log *r*) for *q* request ids and *c* check-ins held, *r* of
    ///   the ids forgotten.
    private mutating func forgetReleasedRecords(before cutoff: Int32) -> [ForgottenRequest] {
        let released = requestIDs.keys.filter { records[Int($0)].ref.day < cutoff }.sorted()
        var requests: [ForgottenRequest] = []
        for record in released {
            guard let id = requestIDs.removeValue(forKey: record) else { continue }
            let index = Int(record)
            requests.append(
                ForgottenRequest(
                    key: UserBook.RequestKey(user: records[index].user, id: id), booking: bookingID(record: index)))
        }
        if !checkIns.isEmpty { checkIns = checkIns.filter { records[Int($0.key)].ref.day >= cutoff } }
        if !checkOuts.isEmpty { checkOuts = checkOuts.filter { records[Int($0.key)].ref.day >= cutoff } }
        return requests
    }

    /// Frees each stored chunk of records, and of holds, whose records are all released, though
    /// an earlier one is still held (made before for a later date, it stops `records.drop` and
    /// `holds.drop`). Nothing names their records any more: request ids and check-ins were
    /// forgotten (``forgetReleasedRecords(before:)``), cells and journal lines released.
    /// - Complexity: O(records and holds stored).
    private mutating func freeReleasedChunks(before cutoff: Int32) {
        for chunk in records.storedChunks where chunk.allSatisfy({ records[$0].ref.day < cutoff }) {
            records.free(chunkOf: chunk.lowerBound)
        }
        for chunk in holds.storedChunks where chunk.allSatisfy({ holds[$0].ref.day < cutoff }) {
            holds.free(chunkOf: chunk.lowerBound)
        }
    }

    /// Forgets the holds of the days from `previous` (the last release's cutoff) to `cutoff`: each
    /// one's user-slot key and, for a hold never confirmed nor released, its entry in its user's
    /// list (returned). Visits every stored hold (not those of chunks already freed); those in
    /// front of the first one of a date not released leave `holds` (nothing names them any more:
    /// their cells, keys, entries and journal lines are gone), freeing their chunks.
    /// - Complexity: O(*h*) in the holds stored, plus those newly in front: about the holds of the
    ///   open horizon (a hold's date is at most the horizon after it was made), and with an
    ///   unlimited one those of the chunks a hold far ahead keeps (`freeReleasedChunks`).
    private mutating func releaseHolds(from previous: Int32, before cutoff: Int32) -> [ReleasedBooking] {
        var entries: [ReleasedBooking] = []
        for h in holds.storedRanges.joined() {
            let hold = holds[h]
            // A hold of a day an earlier release took was forgotten then; a hold far ahead keeps
            // it stored (`freeReleasedChunks`), and returning it again made every release cost
            // the holds released before it.
            guard hold.ref.day < cutoff, hold.ref.day >= previous else { continue }
            let key = HoldKey(user: hold.user, ref: hold.ref)
            if lastHold[key] == Int32(truncatingIfNeeded: h) { lastHold[key] = nil }
            if hold.state == .held { entries.append(ReleasedBooking(user: hold.user, booking: holdEntryID(h))) }
        }
        var front = holds.base
        while front < holds.count, holds[front].ref.day < cutoff { front += 1 }
        holds.drop(before: front)
        return entries
    }

    /// Gives block `block` the regular hours and no bookings (a released day's block, reused).
    mutating func reset(block: Int) {
        let w = wordIndex(block: block, socket: 0)
        for s in regular.indices { words[w + s] = SocketDay(open: regular[s]) }
        let first = Self.cellIndex(word: w, hour: 0)
        for cell in first..<(first + cellsPerBlock) { cells[cell] = 0 }
    }

    /// Moves the blocks in use to the front, in day order, and frees the rest of the storage.
    ///
    /// - Complexity: O(blocks in use · sockets · 24).
    private mutating func compactBlocks() {
        let perBlock = cellsPerBlock
        var newWords: [SocketDay] = []
        var newCells: [UInt32] = []
        var next: Int32 = 0
        for i in dayBlock.indices where dayBlock[i] >= 0 {
            let old = Int(dayBlock[i])
            newWords.append(contentsOf: words[wordIndex(block: old, socket: 0)..<wordIndex(block: old + 1, socket: 0)])
            newCells.append(contentsOf: cells[(old * perBlock)..<((old + 1) * perBlock)])
            dayBlock[i] = next
            next += 1
        }
        words = newWords
        cells = newCells
        freeBlocks = []
        layoutVersion &+= 1
    }

    /// Whether `id` was made (or restored) here and then released.
    func wasReleased(_ id: BookingID) -> Bool {
        if let index = assignedRecord(of: id) { return isReleased(record: index) }
        let group = id.rawValue >> Self.shardShift
        guard let highest = releasedHighWater[group] else { return false }
        let number = id.rawValue & ((1 << Self.shardShift) - 1)
        return number >= 1 && number <= highest
    }

    /// While restoring a snapshot that released bookings, in this book's own id sequence: gives
    /// the ids before `id` (released, so missing from the snapshot) their record indices.
    mutating func skipIDs(before id: BookingID) {
        guard id.rawValue >> Self.shardShift == idPrefix >> Self.shardShift else { return }
        let number = Int(id.rawValue & ((1 << Self.shardShift) - 1))
        skipRecords(to: number - 1 + restoredIDs.count)
    }

    /// ``skipIDs(before:)`` up to and including `id`: the last id the book had assigned.
    mutating func skipIDs(through id: BookingID) {
        guard id.rawValue >> Self.shardShift == idPrefix >> Self.shardShift else { return }
        let number = Int(id.rawValue & ((1 << Self.shardShift) - 1))
        skipRecords(to: number + restoredIDs.count)
    }

    private mutating func skipRecords(to index: Int) {
        records.skip(to: index, filling: .placeholder)
    }

    /// The highest id each (epoch, shard) group this book knows has assigned, for a snapshot
    /// after a release: a restore must not give those ids again.
    func lastIDs() -> [BookingID] {
        var highest = releasedHighWater
        for id in restoredIDs {
            let group = id.rawValue >> Self.shardShift
            highest[group] = max(highest[group] ?? 0, id.rawValue & ((1 << Self.shardShift) - 1))
        }
        let native = records.count - restoredIDs.count
        if native > 0 { highest[idPrefix >> Self.shardShift] = UInt64(native) }
        return highest.map { BookingID($0.key << Self.shardShift | $0.value) }
    }
}
