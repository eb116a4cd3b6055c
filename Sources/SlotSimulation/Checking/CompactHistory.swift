import SlotScheduler

/// A threads-mode history as the checks hold it: 24 bytes per operation and a 4-byte place in
/// invoke order, instead of a 64-byte ``TimedOperation`` (at 10 M operations, 280 MB instead
/// of 640 MB).
///
/// Operations are stored in the order they were read; ``sortByInvoke()`` orders a permutation of
/// them, so a stored operation never moves. Times and `now` are kept relative to the first
/// operation of their block of 1,024 stored operations, users relative to the scenario's first
/// user; the booking, and an operation whose fields do not fit or that has rare fields (a
/// repeat, an availability change), are kept beside it in full. Reading an operation gives back
/// exactly the ``TimedOperation`` stored.
struct CompactHistory: RandomAccessCollection {
    /// One stored operation, in 20 bytes.
    struct Packed {
        /// `invoke` minus the block's first invoke.
        var invoke: Int32
        /// `complete - invoke`, or `UInt16.max`: in its ``Side``.
        var duration: UInt16
        /// `now` minus the block's first `now`.
        var now: Int16
        /// `cell + 1` in bits 0-23; kind in bits 24-25, ``TimedOperation/resolvedIndeterminate``
        /// in bit 26, `outcome + 2` in bits 27-31.
        var cellAndBits: UInt32
        /// `user &- firstUser` in bits 0-23, `process + 1` in bits 24-31.
        var userAndProcess: UInt32
        /// Index into ``sides``, or `UInt32.max` for none.
        var side: UInt32
    }

    /// What some operations need beside their ``Packed`` fields.
    struct Side {
        var booking: UInt64
        /// `complete - invoke` when it does not fit in ``Packed/duration``.
        var duration: UInt32
        /// `-1` for nothing more; `k >= 0`: the operation is `whole[k]`; `k < -1`: it repeats
        /// a request, `repeats[-2 - k]`.
        var extra: Int32
    }

    struct Repeat {
        var repeatOf: UInt64
        var requestID: String?
    }

    static let blockShift = 10
    let firstUser: UInt64
    private var stored: [Packed] = []
    private var blockInvoke: [Int64] = []
    private var blockNow: [Int64] = []
    private var sides: [Side] = []
    private var whole: [TimedOperation] = []
    private var repeats: [Repeat] = []

    init(firstUser: UInt64) { self.firstUser = firstUser }

    var startIndex: Int { 0 }
    var endIndex: Int { stored.count }

    mutating func reserveCapacity(_ n: Int) { stored.reserveCapacity(n) }

    /// Appends an operation.
    mutating func append(_ op: TimedOperation) {
        let position = stored.count
        if position & ((1 << Self.blockShift) - 1) == 0 {
            blockInvoke.append(op.invoke)
            blockNow.append(op.now)
        }
        stored.append(pack(op, at: position))
    }

    subscript(position: Int) -> TimedOperation {
        get { unpack(stored[position], at: position) }
        set { stored[position] = pack(newValue, at: position) }
    }

    /// Orders the operations by invoke time (then process, completion and position), as
    /// ``Swift/Array/sortByInvoke()`` orders an array of them: a 4-byte permutation is sorted,
    /// then applied in place, cycle by cycle, each operation unpacked from its old place and
    /// packed into its new one (against the new place's block).
    /// - Complexity: O(n log n); extra memory 6 bytes per operation while sorting.
    mutating func sortByInvoke() {
        guard stored.count < Int(UInt32.max) else { return }
        var order = [UInt32](0..<UInt32(stored.count))
        order.sort { a, b in
            let x = key(Int(a))
            let y = key(Int(b))
            return (x.invoke, x.process, x.complete, a) < (y.invoke, y.process, y.complete, b)
        }
        let oldInvoke = blockInvoke
        let oldNow = blockNow
        for block in blockInvoke.indices {
            let at = Int(order[block << Self.blockShift])
            let first = unpack(stored[at], invoke: oldInvoke[at >> Self.blockShift], now: oldNow[at >> Self.blockShift])
            blockInvoke[block] = first.invoke
            blockNow[block] = first.now
        }
        // Position k takes the operation at order[k]; a visited position is marked UInt32.max.
        for start in stored.indices where order[start] != .max {
            let saved = (stored[start], start)
            var k = start
            while true {
                let from = Int(order[k])
                order[k] = .max
                let (packed, was) = from == start ? saved : (stored[from], from)
                stored[k] = move(
                    packed, invoke: oldInvoke[was >> Self.blockShift], now: oldNow[was >> Self.blockShift], to: k)
                if from == start { break }
                k = from
            }
        }
    }

    /// `s`, packed against the bases given, packed against those of `position`'s block; its
    /// side entries are kept.
    private mutating func move(_ s: Packed, invoke invokeBase: Int64, now nowBase: Int64, to position: Int) -> Packed {
        if s.side != .max, sides[Int(s.side)].extra >= 0 { return s }
        let block = position >> Self.blockShift
        func rebased(_ offset: Int64, _ base: Int64, _ newBase: Int64) -> Int64? {
            let shift = base.subtractingReportingOverflow(newBase)
            let value = offset.addingReportingOverflow(shift.partialValue)
            return shift.overflow || value.overflow ? nil : value.partialValue
        }
        if let invoke = rebased(Int64(s.invoke), invokeBase, blockInvoke[block]).flatMap({ Int32(exactly: $0) }),
            let now = rebased(Int64(s.now), nowBase, blockNow[block]).flatMap({ Int16(exactly: $0) })
        {
            var moved = s
            moved.invoke = invoke
            moved.now = now
            return moved
        }
        return pack(unpack(s, invoke: invokeBase, now: nowBase), at: position)
    }

    private func key(_ at: Int) -> (invoke: Int64, process: Int32, complete: Int64) {
        let op = unpack(stored[at], at: at)
        return (op.invoke, op.process, op.complete)
    }

    private mutating func pack(_ op: TimedOperation, at position: Int) -> Packed {
        let block = position >> Self.blockShift
        let invoke = op.invoke.subtractingReportingOverflow(blockInvoke[block])
        let duration = op.complete.subtractingReportingOverflow(op.invoke)
        let now = op.now.subtractingReportingOverflow(blockNow[block])
        let user = op.user &- firstUser
        let cell = Int64(op.cell) + 1
        let rare = op.rare
        // Kinds past `change` (lifecycle operations, fewer) are kept whole: two bits hold the kind.
        let plain =
            rare.displaced.isEmpty && rare.detail == nil && rare.change == nil && rare.requestedCell < 0
            && op.kind.rawValue < 4
        let fits =
            !invoke.overflow && Int32(exactly: invoke.partialValue) != nil && !duration.overflow
            && UInt32(exactly: duration.partialValue) != nil && !now.overflow
            && Int16(exactly: now.partialValue) != nil && user < 1 << 24 && (0..<(1 << 24)).contains(cell)
            && (-1..<255).contains(op.process) && (-2..<30).contains(op.outcome) && plain
        let short = fits ? UInt16(exactly: duration.partialValue).flatMap { $0 == .max ? nil : $0 } : nil
        var side = UInt32.max
        if !fits || op.booking != 0 || short == nil || !rare.isEmpty {
            var entry = Side(booking: op.booking, duration: 0, extra: -1)
            if !fits {
                entry.extra = Int32(whole.count)
                whole.append(op)
            } else {
                entry.duration = UInt32(duration.partialValue)
                if !rare.isEmpty {
                    entry.extra = -2 - Int32(repeats.count)
                    repeats.append(Repeat(repeatOf: rare.repeatOf, requestID: rare.requestID))
                }
            }
            side = UInt32(sides.count)
            sides.append(entry)
        }
        guard fits else {
            return Packed(invoke: 0, duration: 0, now: 0, cellAndBits: 0, userAndProcess: 0, side: side)
        }
        let bits =
            UInt32(op.kind.rawValue) | (op.resolvedIndeterminate ? 4 : 0) | UInt32(Int32(op.outcome) + 2) << 3
        return Packed(
            invoke: Int32(invoke.partialValue), duration: short ?? .max, now: Int16(now.partialValue),
            cellAndBits: UInt32(cell) | bits << 24, userAndProcess: UInt32(user) | UInt32(op.process + 1) << 24,
            side: side)
    }

    private func unpack(_ s: Packed, at position: Int) -> TimedOperation {
        unpack(s, invoke: blockInvoke[position >> Self.blockShift], now: blockNow[position >> Self.blockShift])
    }

    private func unpack(_ s: Packed, invoke invokeBase: Int64, now nowBase: Int64) -> TimedOperation {
        var side = Side(booking: 0, duration: UInt32(s.duration), extra: -1)
        if s.side != .max {
            side = sides[Int(s.side)]
            if side.extra >= 0 { return whole[Int(side.extra)] }
        }
        let bits = s.cellAndBits >> 24
        let invoke = invokeBase &+ Int64(s.invoke)
        var op = TimedOperation(
            process: Int32(s.userAndProcess >> 24) - 1,
            kind: TimedOperation.Kind(rawValue: UInt8(bits & 3)) ?? .reserve,
            user: firstUser &+ UInt64(s.userAndProcess & 0xFF_FFFF), cell: Int32(s.cellAndBits & 0xFF_FFFF) - 1,
            booking: side.booking, now: nowBase &+ Int64(s.now), invoke: invoke,
            complete: invoke &+ Int64(s.duration == .max ? side.duration : UInt32(s.duration)))
        op.outcome = Int16(bits >> 3) - 2
        op.resolvedIndeterminate = bits & 4 != 0
        if side.extra < -1 {
            let r = repeats[Int(-2 - side.extra)]
            op.repeatOf = r.repeatOf
            op.requestID = r.requestID
        }
        return op
    }
}
