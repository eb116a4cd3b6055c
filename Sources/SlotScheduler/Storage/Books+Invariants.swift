/// The books' internal consistency: what every command must leave true of a ledger's slot book
/// and user book, whatever it decided. Checked after every command in debug builds (on books
/// small enough that the check stays a constant cost) and after every step of the property
/// tests; in the spirit of swift-collections' `_checkInvariants()`.
///
/// - Cells ↔ words: an hour's taken bit is set exactly when its cell names a booking or a hold;
///   a cell names a hold only in a socket-day flagged as held.
/// - Cells ↔ records: a cell names an active, unreleased record of exactly its slot, and every
///   active unreleased record is named by its slot's cell.
/// - Cells ↔ holds: a cell names a held hold of exactly its slot.
/// - Records ↔ user entries: every active unreleased booking is in its user's lists exactly
///   once; every booking entry names an active booking of that user; each user's live count is
///   its live list's length; the total is every user's booking entries.
/// - Request ids: a remembered request id of an unreleased booking is remembered for its user,
///   naming it.
/// - Journal: every entry refers to a record, change, move or hold that exists.
extension Ledger {
    /// Every broken relation found (at most `limit`), in a fixed order; empty when consistent.
    ///
    /// - Complexity: O(*d* · *s* · 24 + *r* + *e*): the day blocks' cells, the records and the user
    ///   entries.
    public func _consistencyProblems(limit: Int = 20) -> [String] {
        var problems = ConsistencyProblems(limit: limit)
        slots.checkCells(catalog: rules.catalog, into: &problems)
        slots.checkRecordsAgainstCells(into: &problems)
        users.checkEntries(against: slots, into: &problems)
        slots.checkRequestIDs(users: users, into: &problems)
        slots.checkJournal(into: &problems)
        return problems.found
    }

    /// Stops the program, as a failed `assert` does, when the books are inconsistent
    /// (``_consistencyProblems(limit:)``). A debugging aid.
    public func _checkInvariants() {
        let problems = _consistencyProblems()
        precondition(problems.isEmpty, "ledger inconsistent: \(problems.joined(separator: "; "))")
    }

    /// ``_checkInvariants()`` after a debug build's commands, at a cost of about 16 steps per
    /// command: after every command while the books (cells, records, user states) are at most 16
    /// entries, else after every *k*-th, *k* the size over 16 rounded up to a power of two. A
    /// debug simulator run of millions of commands stays a debug run, not a slower one by the
    /// books' size; `ApplyProperties.oneApply` checks after every command.
    mutating func checkInvariantsAmortized() {
        #if DEBUG
        commandsApplied &+= 1
        let size = slots.cells.count &+ slots.records.count &+ users.states.count
        let interval = size <= 16 ? 1 : Int(1) << (Int.bitWidth - (size / 16 - 1).leadingZeroBitCount)
        guard commandsApplied & (interval - 1) == 0 else { return }
        _checkInvariants()
        #endif
    }
}

/// Problems found, up to a limit.
struct ConsistencyProblems {
    let limit: Int
    private(set) var found: [String] = []

    init(limit: Int) { self.limit = max(1, limit) }

    var isFull: Bool { found.count >= limit }

    mutating func add(_ problem: @autoclosure () -> String) {
        if !isFull { found.append(problem()) }
    }
}

extension SlotBook {
    /// The slot of local `socket` on `day` at `hour`, for every local socket of this book.
    func slotRefs(catalog: Catalog) -> [Int32: (station: Int32, socket: Int32)] {
        var table: [Int32: (station: Int32, socket: Int32)] = [:]
        for flat in 0..<catalog.socketCount {
            let station = catalog.stationOfSocket[flat]
            if owns(station: Int(station)) { table[localSocket[flat]] = (station, Int32(flat)) }
        }
        return table
    }

    func checkCells(catalog: Catalog, into problems: inout ConsistencyProblems) {
        let sockets = slotRefs(catalog: catalog)
        for (i, block) in dayBlock.enumerated() where block >= 0 {
            let day = firstDay &+ Int32(i)
            for socket in 0..<socketCount {
                guard let (station, flat) = sockets[Int32(socket)] else {
                    problems.add("local socket \(socket) is no socket of this book's stations")
                    continue
                }
                let w = wordIndex(block: Int(block), socket: socket)
                for hour in 0..<Self.hoursPerDay {
                    if problems.isFull { return }
                    let ref = SlotRef(station: station, socket: flat, day: day, hour: Int32(hour))
                    checkCell(ref, word: words[w], cell: cells[Self.cellIndex(word: w, hour: hour)], into: &problems)
                }
            }
        }
    }

    private func checkCell(_ ref: SlotRef, word: SocketDay, cell: UInt32, into problems: inout ConsistencyProblems) {
        let at = "day \(ref.day) socket \(ref.socket) hour \(ref.hour)"
        if word.isTaken(ref.hour) != (cell != 0) {
            problems.add("\(at): taken bit \(word.isTaken(ref.hour)), cell \(cell)")
        }
        if cell & Self.holdBit != 0 {
            let h = Int(cell & ~Self.holdBit)
            guard word.mayHoldHours else { return problems.add("\(at): a hold's cell in a socket-day never held") }
            guard holds.indices.contains(h) else { return problems.add("\(at): names hold \(h), which is not stored") }
            if holds[h].ref != ref || holds[h].state != .held {
                problems.add("\(at): names hold \(h), \(holds[h].state) at another slot or not held")
            }
        } else if let record = Self.record(inCell: cell) {
            guard records.indices.contains(record), !isReleased(record: record) else {
                return problems.add("\(at): names record \(record), which is not held")
            }
            if records[record].ref != ref || records[record].status != .active {
                problems.add("\(at): names record \(record), \(records[record].status) at another slot")
            }
        }
    }

    func checkRecordsAgainstCells(into problems: inout ConsistencyProblems) {
        for range in records.storedRanges {
            for record in range where !isReleased(record: record) && records[record].status == .active {
                if problems.isFull { return }
                if occupant(records[record].ref) != record {
                    problems.add("active record \(record) is not in its slot's cell")
                }
            }
        }
    }

    func checkRequestIDs(users: UserBook, into problems: inout ConsistencyProblems) {
        for (record, requestID) in requestIDs.sorted(by: { $0.key < $1.key }) {
            let r = Int(record)
            guard records.indices.contains(r), !isReleased(record: r) else { continue }
            if problems.isFull { return }
            let remembered = users.requests[UserBook.RequestKey(user: records[r].user, id: requestID)]
            if remembered?.booking != bookingID(record: r) {
                problems.add("request id \(requestID) of record \(r) is not remembered for its user as its booking")
            }
        }
    }

    func checkJournal(into problems: inout ConsistencyProblems) {
        for (i, entry) in journal.enumerated() {
            if problems.isFull { return }
            let reference = Int(entry.reference)
            let bound: Int
            switch entry.kind {
            case .reserved, .cancelled, .displaced, .holdConfirmed, .checkedIn, .checkedOut: bound = records.count
            case .availabilityChanged: bound = changes.count
            case .rescheduled: bound = moves.count
            case .held, .holdReleased: bound = holds.count
            }
            if reference < 0 || reference >= bound {
                problems.add("journal entry \(journalBase + i) (\(entry.kind)) refers to \(reference) of \(bound)")
            }
        }
    }
}

extension UserBook {
    func checkEntries(against slots: SlotBook, into problems: inout ConsistencyProblems) {
        var bookingEntries = 0
        var seen: [BookingID: Int] = [:]
        for u in states.indices where states[u].active >= 0 {
            let (live, entriesOfUser) = walk(u, slots: slots, into: &problems)
            if live != states[u].active {
                problems.add("user index \(u): live count \(states[u].active), live list \(live)")
            }
            for id in entriesOfUser { seen[id, default: 0] += 1 }
            bookingEntries += entriesOfUser.count
        }
        if bookingEntries != activeTotal {
            problems.add("active total \(activeTotal), booking entries \(bookingEntries)")
        }
        for range in slots.records.storedRanges {
            for record in range where !slots.isReleased(record: record) && slots.records[record].status == .active {
                if problems.isFull { return }
                let count = seen[slots.bookingID(record: record)] ?? 0
                if count != 1 { problems.add("active record \(record) is in its user's lists \(count) times") }
            }
        }
    }

    /// Walks user `u`'s live and ended lists: the live list's length, and its booking entries'
    /// ids, each checked to name an active booking of that user.
    private func walk(_ u: Int, slots: SlotBook, into problems: inout ConsistencyProblems) -> (Int32, [BookingID]) {
        var live: Int32 = 0
        var bookings: [BookingID] = []
        for (first, isLive) in [(states[u].head, true), (states[u].ended, false)] {
            var e = first
            var steps = 0
            while e >= 0 {
                steps += 1
                guard steps <= entries.count else {
                    problems.add("user index \(u): a list loops")
                    break
                }
                let entry = entries[Int(e)]
                if isLive { live += 1 }
                if entry.flags & Self.holdFlag == 0 {
                    bookings.append(entry.booking)
                    let isTheirs =
                        slots.record(of: entry.booking).map {
                            slots.records[$0].status == .active && find(slots.records[$0].user) == u
                        } ?? slots.wasReleased(entry.booking)
                    if !isTheirs {
                        problems.add("user index \(u): entry for booking \(entry.booking), not an active one of theirs")
                    }
                }
                e = entry.next
            }
        }
        return (live, bookings)
    }
}
