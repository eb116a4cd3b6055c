import SlotScheduler

/// I11 for a threads-mode history: each operation as the booking specifications see it, the
/// history partitioned per slot and per user, and each partition searched for an order
/// (``LinearizabilityChecker``).
extension ThreadsAnalysis {
    func operation(_ i: Int, made: [UInt64: Int]) -> BookingOperation? {
        let op = history[i]
        var b = BookingOperation(
            kind: .neutral, booking: op.booking, user: op.user, now: op.now, invoke: op.invoke, complete: op.complete)
        switch (op.kind, op.outcome) {
        case (.reserve, -1), (.anySocket, -1):
            b.kind = op.repeatOf != 0 || made[op.booking] != i ? .repeated : .reserved
            b.start = p.starts[Int(op.cell)]
            b.limit = Int32(clamping: rules.limit(for: UserID(op.user)))
        case (.reschedule, -1):
            // Only a move to another cell changes anything (see ``movedFrom``).
            guard movedFrom[i] != nil else { return nil }
            b.kind = .moved
            b.start = p.starts[Int(op.cell)]
            b.limit = Int32(clamping: rules.limit(for: UserID(op.user)))
        case (.checkIn, -1), (.checkIn, -2):
            // A check-in matters to its user's limit only where no-shows lower it.
            guard p.rules.policy.noShowLimit != nil else { return nil }
            b.kind = op.outcome == -1 ? .checkedIn : .maybeCheckedIn
        case (.hold, _), (.confirm, _), (.releaseHold, _):
            return holdOperation(i, made: made)
        case (.reserve, -2), (.cancel, -2), (.query, _), (.change, _), (.reschedule, _), (.anySocket, _),
            (.checkIn, _), (.checkOut, -2):
            return nil
        case (.reserve, let code):
            switch Reasons.all[Int(code)] {
            case .slotTaken: b.kind = .refusedTaken
            case .slotHeld: b.kind = .refusedHeld
            case .userLimitReached:
                // Holds and a no-show limit lower what a user may book: such a refusal says less.
                guard p.rules.policy.noShowLimit == nil, !holders.contains(op.user) else {
                    b.kind = .refusedOther
                    break
                }
                b.kind = .refusedLimit
                b.limit = Int32(clamping: rules.limit(for: UserID(op.user)))
            default: b.kind = .refusedOther
            }
        case (.cancel, -1), (.checkOut, -1): b.kind = .released
        case (.cancel, let code), (.checkOut, let code):
            let reason = Reasons.all[Int(code)]
            b.kind = reason == .alreadyCancelled || reason == .alreadyCheckedOut ? .refusedInactive : .neutral
        }
        return b
    }

    /// The cell a booking ended in: its last placement's.
    func lastCell(_ booking: UInt64, made: [UInt64: Int]) -> Int32 {
        if let last = placements[booking]?.last { return history[last].cell }
        return made[booking].map { history[$0].cell } ?? -1
    }

    /// One operation's place in a linearizability partition: the partition's key (a cell or a
    /// user) and the history index of the operation, or for an operation the history does not
    /// hold, `-1 - k` for the *k*-th ``Implied`` operation.
    struct PartitionEntry {
        var key: UInt64
        var index: Int32
    }

    /// An operation a partition needs that no call made: each is at a call's place in time.
    enum Implied {
        /// A booking an accepted availability change (history index `change`) displaced: a
        /// release in its slot's and its user's partitions, at the change's time.
        case displaced(change: Int, booking: UInt64, cell: Int32)
        /// The booking an accepted reschedule (history index `move`) moved out of `cell`: a
        /// release in that cell's partition only.
        case movedOut(move: Int, booking: UInt64, cell: Int32)
        /// The lapse of `holder`'s hold `hold` of `cell`, asked for by call `call` with an
        /// unknown outcome, at any moment from its invocation on (see ``holdDrops()``): in the
        /// slot's and the holder's partitions.
        case holdLapse(call: Int, hold: UInt64, cell: Int32, holder: UInt64)

        var cell: Int32 {
            switch self {
            case .displaced(_, _, let cell), .movedOut(_, _, let cell), .holdLapse(_, _, let cell, _): cell
            }
        }
    }

    /// The partition key of an implied operation (`bySlot`: its cell; else its user), `nil`
    /// when it is in no partition of that kind.
    func partitionKey(_ implied: Implied, bySlot: Bool, made: [UInt64: Int]) -> UInt64? {
        if bySlot { return UInt64(implied.cell) }
        switch implied {
        case .displaced(_, let booking, _): return made[booking].map { history[$0].user }
        case .movedOut: return nil
        case .holdLapse(_, _, _, let holder): return holder
        }
    }

    /// The booking operation of a partition entry, as the checker sees it.
    func bookingOperation(_ entry: PartitionEntry, implied: [Implied], made: [UInt64: Int]) -> BookingOperation? {
        guard entry.index >= 0 else { return bookingOperation(implied[Int(-1 - entry.index)], made: made) }
        let i = Int(entry.index)
        guard var b = operation(i, made: made) else { return nil }
        if history[i].kind.endsBooking, made[b.booking] != nil {
            b.start = p.starts[Int(lastCell(b.booking, made: made))]
        }
        return b
    }

    /// An implied operation as the checker sees it.
    func bookingOperation(_ implied: Implied, made: [UInt64: Int]) -> BookingOperation? {
        switch implied {
        case .displaced(let at, let booking, _), .movedOut(let at, let booking, _):
            guard let m = made[booking] else { return nil }
            let op = history[at]
            return BookingOperation(
                kind: .released, booking: booking, user: history[m].user, now: op.now, invoke: op.invoke,
                complete: op.complete)
        case .holdLapse(let call, let hold, _, let holder):
            let op = history[call]
            return BookingOperation(
                kind: .lapsed, booking: hold, user: holder, now: op.now, invoke: op.invoke, complete: .max)
        }
    }

    /// The partition key of operation `i`: its slot's cell (`bySlot`) or its booking's owner;
    /// `nil` if it belongs to no partition of that kind.
    func partitionKey(_ i: Int, bySlot: Bool, made: [UInt64: Int]) -> UInt64? {
        guard let op = operation(i, made: made) else { return nil }
        let isCancel = history[i].kind.endsBooking
        // A check-in is in its user's partition only (for the no-show limit).
        if history[i].kind == .checkIn { return bySlot ? nil : op.user }
        if bySlot {
            let cell = isCancel ? made[op.booking].map { _ in lastCell(op.booking, made: made) } : history[i].cell
            return cell.map { UInt64($0) }
        }
        let owner = isCancel ? made[op.booking].map { history[$0].user } : op.user
        // A cancel refused because the caller is not the owner says nothing about the owner's
        // state, nor does a cancel by another user.
        if isCancel, op.kind == .neutral || owner != op.user { return nil }
        return owner
    }

    /// I11: linearizability per slot, then per user, in key order. Each kind's partitions are
    /// gathered in batches of keys holding about ``partitionBatchSize`` operations (one pass over the
    /// history per batch), and checked one at a time, so only one batch of 16-byte entries and
    /// one partition's operations are held at once.
    /// - Complexity: O(n log n) to partition, plus O(n) per batch, plus the search in each partition.
    mutating func checkLinearizability(made: [UInt64: Int], budget: Int) {
        var implied: [Implied] = []
        for (i, op) in history.enumerated() where op.kind == .change && op.outcome == -1 {
            for id in op.displaced where made[id] != nil {
                implied.append(.displaced(change: i, booking: id, cell: lastCell(id, made: made)))
            }
        }
        for (i, from) in movedFrom.sorted(by: { $0.key < $1.key }) {
            implied.append(.movedOut(move: i, booking: history[i].booking, cell: from))
        }
        implied += holdDrops()
        var partitions = 0
        var unknown = 0
        var failing: String?
        for bySlot in [true, false] {
            var low: UInt64? = 0
            while let from = low {
                var (entries, upTo) = batchOfPartitions(from: from, bySlot: bySlot, made: made)
                low = upTo
                for (k, extra) in implied.enumerated() {
                    guard let key = partitionKey(extra, bySlot: bySlot, made: made), key >= from,
                        upTo.map({ key < $0 }) ?? true
                    else { continue }
                    entries.append(PartitionEntry(key: key, index: Int32(-1 - k)))
                }
                // Within a partition: its own operations in history order, then the implied ones.
                entries.sort {
                    ($0.key, $0.index < 0 ? 1 : 0, abs($0.index)) < ($1.key, $1.index < 0 ? 1 : 0, abs($1.index))
                }
                var start = 0
                while start < entries.count {
                    var end = start
                    while end < entries.count && entries[end].key == entries[start].key { end += 1 }
                    let ops = entries[start..<end].compactMap {
                        bookingOperation($0, implied: implied, made: made)
                    }
                    let key = entries[start].key
                    let first = max(0, Int(entries[start].index))
                    start = end
                    partitions += 1
                    let intervals = ops.map { ($0.invoke, $0.complete) }
                    let verdict =
                        bySlot
                        ? LinearizabilityChecker.check(SlotSpecification(ops), intervals: intervals, budget: budget)
                        : LinearizabilityChecker.check(userSpecification(ops), intervals: intervals, budget: budget)
                    switch verdict {
                    case .linearizable: break
                    case .unknown: unknown += 1
                    case .notLinearizable:
                        let name = bySlot ? "\(p.slot(ofCell: Int32(truncatingIfNeeded: key)))" : "user \(key)"
                        if let (invariant, rule) = attribute(ops, bySlot: bySlot, budget: budget) {
                            violate(invariant, at: first, "no order of \(name)'s history keeps \(rule)")
                        }
                        guard failing == nil else { break }
                        failing = bySlot ? "slot \(name)" : name
                        violate(.I11, at: first, "the history of \(name) is not linearizable")
                    }
                }
            }
        }
        linearizability = .init(
            status: failing != nil ? "not linearizable" : unknown > 0 ? "unknown" : "linearizable",
            partitions: partitions, unknownPartitions: unknown, failingPartition: failing)
    }

    /// The history's entries whose partition key is at least `from`, up to a bound (returned; `nil`
    /// for none) below which they number about ``partitionBatchSize``, in history order.
    /// - Complexity: O(n + b log b) for b = ``partitionBatchSize``.
    func batchOfPartitions(from: UInt64, bySlot: Bool, made: [UInt64: Int]) -> ([PartitionEntry], UInt64?) {
        var entries: [PartitionEntry] = []
        var upTo: UInt64?
        var limit = 2 * partitionBatchSize
        for i in history.indices {
            guard let key = partitionKey(i, bySlot: bySlot, made: made), key >= from, upTo.map({ key < $0 }) ?? true
            else { continue }
            entries.append(PartitionEntry(key: key, index: Int32(i)))
            guard entries.count >= limit else { continue }
            // Too many: keep the smallest keys, whole partitions only.
            var keys = entries.map(\.key)
            keys.sort()
            var cut = partitionBatchSize
            if keys[cut] == keys[0] {
                while cut < keys.count && keys[cut] == keys[0] { cut += 1 }
            }
            guard cut < keys.count else {
                // One partition holds them all: it is one batch by itself.
                limit = 2 * entries.count
                continue
            }
            let bound = keys[cut]
            upTo = bound
            entries.removeAll { $0.key >= bound }
        }
        return (entries, upTo)
    }
}
