import SlotScheduler

/// A store's final bookings in id order, looked up by binary search, kept as the checks read
/// them (id, user, slot and status: 24 bytes each, the slot as its cell) rather than as whole
/// ``Booking`` values.
struct BookingsByID {
    /// What the checks read of a stored booking.
    struct Stored {
        var id: BookingID
        var user: UserID
        var slot: Slot
        var status: Booking.Status
    }

    /// One booking: its slot as the scenario's cell, or `-1 - k` for the `k`-th of ``odd``.
    private struct Packed {
        var id: UInt64
        var user: UInt64
        var cell: Int32
        var status: Booking.Status
    }

    private let packed: [Packed]
    /// Slots that are no cell of the scenario (a broken store could hold one).
    private let odd: [Slot]
    private let p: PreparedScenario
    /// What ``SessionCheck`` found in the whole bookings (I21), which keep the session times
    /// this compact form drops.
    let sessionProblems: [String]

    /// Every booking, by id (a repeated id, which a broken store could return, keeps its order).
    var all: some RandomAccessCollection<Stored> { packed.lazy.map(stored) }

    init(_ bookings: [Booking], _ p: PreparedScenario) {
        self.p = p
        let ordered = zip(bookings, bookings.dropFirst()).allSatisfy { $0.id.rawValue <= $1.id.rawValue }
        var order = Array(bookings.indices)
        if !ordered { order.sort { (bookings[$0].id.rawValue, $0) < (bookings[$1].id.rawValue, $1) } }
        var odd: [Slot] = []
        var packed: [Packed] = []
        packed.reserveCapacity(bookings.count)
        for i in order {
            let b = bookings[i]
            var cell = Self.cell(of: b.slot, p)
            if cell == nil {
                cell = -1 - Int32(odd.count)
                odd.append(b.slot)
            }
            packed.append(Packed(id: b.id.rawValue, user: b.user.rawValue, cell: cell ?? -1, status: b.status))
        }
        self.packed = packed
        self.odd = odd
        sessionProblems = SessionCheck.problems(bookings, rules: p.rules)
    }

    /// The scenario's cell of `slot`, if it has one that names the very same slot.
    private static func cell(of slot: Slot, _ p: PreparedScenario) -> Int32? {
        guard let ref = try? p.rules.catalog.resolve(slot), ref.day >= p.firstDay,
            Int64(ref.day) - Int64(p.firstDay) < Int64(p.days)
        else { return nil }
        let cell = p.cell(socket: ref.socket, day: ref.day, hour: ref.hour)
        guard (0..<Int32(clamping: p.cellCount)).contains(cell), p.slot(ofCell: cell) == slot else { return nil }
        return cell
    }

    private func stored(_ b: Packed) -> Stored {
        Stored(
            id: BookingID(b.id), user: UserID(b.user),
            slot: b.cell >= 0 ? p.slot(ofCell: b.cell) : odd[Int(-1 - b.cell)],
            status: b.status)
    }

    /// The first booking with `id`, if any.
    /// - Complexity: O(log n).
    subscript(id id: UInt64) -> Stored? {
        var low = 0
        var high = packed.count
        while low < high {
            let mid = (low + high) / 2
            if packed[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < packed.count && packed[low].id == id ? stored(packed[low]) : nil
    }

    /// The first booking of each id, in id order.
    var distinct: some Sequence<Stored> {
        packed.indices.lazy.filter { i in i == 0 || packed[i - 1].id != packed[i].id }.map { stored(packed[$0]) }
    }
}
