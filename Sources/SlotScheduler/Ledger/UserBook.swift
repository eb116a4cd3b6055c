/// Per-user state: each user's active bookings (for the limit) and remembered request ids.
///
/// Users are found through an open-addressing table keyed by the raw user id, so the limit
/// check never hashes a string.
struct UserBook: Sendable {
    /// Open-addressing table; a user's record lives in its table slot, so finding a user costs
    /// one cache miss. Record indices change only when the table grows (inside `findOrInsert`).
    var users: [UserRecord]
    private var mask: Int
    private(set) var count = 0
    var entries: [UserEntry] = []
    var freeEntry: Int32 = -1
    var requests: [RequestKey: RememberedRequest] = [:]

    init(expectedUsers: Int = 1024) {
        var capacity = 16
        while capacity < expectedUsers * 2 { capacity <<= 1 }
        users = [UserRecord](repeating: .empty, count: capacity)
        mask = capacity - 1
    }

    struct UserRecord: Sendable, Equatable {
        var id: UserID
        /// First entry of this user's list of active bookings, or -1.
        var head: Int32
        /// Number of active bookings, past ones included.
        var active: Int32
        /// The user's limit, or -1 for an empty table slot.
        var limit: Int32

        static let empty = UserRecord(id: 0, head: -1, active: 0, limit: -1)
        var isUsed: Bool { limit >= 0 }
    }

    struct UserEntry: Sendable, Equatable {
        var booking: BookingID
        var start: Int64
        var next: Int32
    }

    struct RequestKey: Hashable, Sendable {
        var user: UserID
        var id: RequestID
    }

    struct RememberedRequest: Sendable, Equatable {
        var booking: BookingID
        var ref: SlotRef
        var reminder: Int64?
    }

    @inline(__always)
    private static func hash(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 17)
    }

    /// The index of `user`, if it has a record.
    @inline(__always)
    func find(_ user: UserID) -> Int? {
        var i = Self.hash(user.rawValue) & mask
        while true {
            let record = users[i]
            if !record.isUsed { return nil }
            if record.id == user { return i }
            i = (i &+ 1) & mask
        }
    }

    /// The index of `user`, creating its record with `limit` if needed.
    ///
    /// - Complexity: amortised O(1).
    @inline(__always)
    mutating func findOrInsert(_ user: UserID, limit: Int) -> Int {
        var i = Self.hash(user.rawValue) & mask
        while true {
            let record = users[i]
            if !record.isUsed { break }
            if record.id == user { return i }
            i = (i &+ 1) & mask
        }
        if (count + 1) * 2 > mask {
            grow()
            return findOrInsert(user, limit: limit)
        }
        users[i] = UserRecord(id: user, head: -1, active: 0, limit: Int32(clamping: max(0, limit)))
        count += 1
        return i
    }

    private mutating func grow() {
        let old = users
        users = [UserRecord](repeating: .empty, count: (mask + 1) * 2)
        mask = users.count - 1
        for record in old where record.isUsed {
            var i = Self.hash(record.id.rawValue) & mask
            while users[i].isUsed { i = (i &+ 1) & mask }
            users[i] = record
        }
    }

    /// Every user with a record, in table order (not meaningful: sort before showing).
    var records: some Sequence<UserRecord> { users.lazy.filter(\.isUsed) }

    /// Reserves room for `bookings` entries, faulting their pages in now.
    mutating func prefault(bookings: Int) {
        guard bookings > 0 else { return }
        entries = Array(repeating: UserEntry(booking: BookingID(0), start: 0, next: -1), count: bookings)
        entries.removeAll(keepingCapacity: true)
    }

    /// How many of the user's active bookings have not ended at `now`.
    ///
    /// - Complexity: O(1) while the user holds fewer active bookings than `atLeast`; otherwise
    ///   O(*k*) in the user's active bookings.
    @inline(__always)
    func upcomingCount(_ user: Int, at now: Int64, reaching atLeast: Int32) -> Int32 {
        let record = users[user]
        if record.active < atLeast { return record.active }
        var count: Int32 = 0
        var e = record.head
        while e >= 0 {
            if entries[Int(e)].start + 3_600 > now { count += 1 }
            e = entries[Int(e)].next
        }
        return count
    }

    mutating func add(_ booking: BookingID, start: Int64, to user: Int) {
        let entry = UserEntry(booking: booking, start: start, next: users[user].head)
        let index: Int32
        if freeEntry >= 0 {
            index = freeEntry
            freeEntry = entries[Int(index)].next
            entries[Int(index)] = entry
        } else {
            index = Int32(entries.count)
            entries.append(entry)
        }
        users[user].head = index
        users[user].active += 1
    }

    mutating func remove(_ booking: BookingID, from user: Int) {
        var previous: Int32 = -1
        var e = users[user].head
        while e >= 0 {
            let next = entries[Int(e)].next
            if entries[Int(e)].booking == booking {
                if previous < 0 { users[user].head = next } else { entries[Int(previous)].next = next }
                entries[Int(e)].next = freeEntry
                freeEntry = e
                users[user].active -= 1
                return
            }
            previous = e
            e = next
        }
    }

    /// The booking ids of a user's active bookings, in no particular order.
    func activeBookings(of user: UserID) -> [BookingID] {
        guard let index = find(user) else { return [] }
        var result: [BookingID] = []
        var e = users[index].head
        while e >= 0 {
            result.append(entries[Int(e)].booking)
            e = entries[Int(e)].next
        }
        return result
    }
}
