/// Per-user state: each user's active bookings (for the limit) and remembered request ids.
///
/// A user's hot state is 16 bytes (``UserState``). Users with small ids, below `directUsers`,
/// find it by direct index (`id >> idShift`), with no hashing and no probing: dense ids, as a
/// database sequence hands out, need one cache line per check. Other ids go to an
/// open-addressing table after the direct region. A user's *index* is stable until the table
/// grows (inside ``findOrInsert(_:)``).
struct UserBook: Sendable {
    // Field order is layout (see `LockedCells`, `BookLayoutTests`): what a reservation writes
    // (the entries' count, the free list, the total) shares the 64-byte line of a `Scheduler`
    // stripe cell's lock word; what it only reads follows, from the direct limit to `states`,
    // which starts the next line; the rest after.
    var entries = Column<UserEntry>()
    var freeEntry: Int32 = -1
    /// Active bookings of every user together, past ones included.
    var activeTotal = 0
    /// The user ids below this value are direct.
    let directLimit: UInt64
    /// Direct index of a direct id: `id >> idShift` (the ``Scheduler`` stripes ids by low bits).
    let idShift: UInt64
    /// Direct states first, then one state per table slot.
    var states: [UserState]
    private let directCount: Int
    /// Table slot → hashed user id, or 0 for an empty slot (id 0 is always direct).
    private var keys: [UInt64]
    private var mask: Int
    private var hashedCount = 0
    var requests: [RequestKey: RememberedRequest] = [:]
    /// Reschedules' request ids: their own namespace.
    var reschedules: [RequestKey: RememberedMove] = [:]
    /// Each user's cancelled and displaced bookings (see `UserBook+CheckIn.swift`).
    var closed: [UserID: [ClosedEntry]] = [:]

    /// - Parameters:
    ///   - directUsers: how many ids (after the shift) get a direct slot; sizes the direct region.
    ///   - idShift: the low bits every id of this book shares and that the direct index drops.
    init(directUsers: Int = 1024, idShift: Int = 0) {
        directCount = max(1, directUsers)
        self.idShift = UInt64(idShift)
        directLimit = UInt64(directCount) << UInt64(idShift)
        let capacity = 16
        states = [UserState](repeating: .none, count: directCount)
        states.append(contentsOf: repeatElement(UserState.unused, count: capacity))
        keys = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    struct UserState: Sendable, Equatable {
        /// Number of bookings in the live list; -1 marks an unused table slot.
        var active: Int32
        /// First entry of the live list: active bookings not yet seen ended, newest first; or -1.
        var head: Int32
        /// First entry of the ended list: active bookings a limit check saw ended, latest start
        /// first; or -1.
        var ended: Int32
        /// The first ended entry's start in minutes, rounded up (`Int32.min` when there is none):
        /// whether a check's `now` may count an ended booking again, without reading it.
        var endedMinute: Int32

        static let none = UserState(active: 0, head: -1, ended: -1, endedMinute: .min)
        static let unused = UserState(active: -1, head: -1, ended: -1, endedMinute: .min)
    }

    struct UserEntry: Sendable, Equatable {
        var booking: BookingID
        var start: Int64
        var next: Int32
        /// ``holdFlag`` for a hold's entry (see `UserBook+Holds.swift`), ``checkedInFlag`` for a
        /// booking checked in (see `UserBook+CheckIn.swift`).
        var flags: UInt8 = 0
    }

    struct RequestKey: Hashable, Sendable {
        var user: UserID
        var id: RequestID
    }

    struct RememberedMove: Sendable, Equatable {
        var booking: BookingID
        var to: SlotRef
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

    /// The index of `user`, if it has a state.
    @inline(__always)
    func find(_ user: UserID) -> Int? {
        let id = user.rawValue
        if id < directLimit { return Int(truncatingIfNeeded: id >> idShift) }
        var i = Self.hash(id) & mask
        while true {
            let key = keys[i]
            if key == id { return directCount &+ i }
            if key == 0 { return nil }
            i = (i &+ 1) & mask
        }
    }

    /// The index of `user`, creating its state if needed.
    ///
    /// - Complexity: O(1) for a direct id; amortised O(1) otherwise.
    @inline(__always)
    mutating func findOrInsert(_ user: UserID) -> Int {
        let id = user.rawValue
        if id < directLimit { return Int(truncatingIfNeeded: id >> idShift) }
        return findOrInsertHashed(id)
    }

    private mutating func findOrInsertHashed(_ id: UInt64) -> Int {
        var i = Self.hash(id) & mask
        while true {
            let key = keys[i]
            if key == id { return directCount + i }
            if key == 0 { break }
            i = (i &+ 1) & mask
        }
        if (hashedCount + 1) * 2 > mask {
            grow()
            return findOrInsertHashed(id)
        }
        keys[i] = id
        states[directCount + i] = .none
        hashedCount += 1
        return directCount + i
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldStates = states[directCount...]
        let capacity = keys.count * 2
        keys = [UInt64](repeating: 0, count: capacity)
        states.replaceSubrange(directCount..., with: repeatElement(UserState.unused, count: capacity))
        mask = capacity - 1
        for (key, state) in zip(oldKeys, oldStates) where key != 0 {
            var i = Self.hash(key) & mask
            while keys[i] != 0 { i = (i &+ 1) & mask }
            keys[i] = key
            states[directCount + i] = state
        }
    }

    /// Reserves room for `users` hashed ids and `bookings` entries, faulting their pages in now.
    mutating func prefault(users: Int, bookings: Int) {
        while (hashedCount + users) * 2 > mask { grow() }
        guard bookings > 0 else { return }
        entries.prefault(bookings, with: UserEntry(booking: BookingID(0), start: 0, next: -1))
    }

    /// How many of the user's active bookings have not ended at `now`, or, when that is below
    /// `atLeast`, possibly a larger number still below it.
    ///
    /// The limit check must not walk a user's history: when it walks the live list (only once the
    /// list holds `atLeast` entries), it moves the bookings that have ended at `now` to the
    /// user's ended list, which is kept by start, latest first. A later call with an earlier
    /// `now` (clocks of several callers differ) counts the ended list's entries that have not
    /// ended at *its* `now`: a prefix of that list, found without reading the rest.
    ///
    /// - Complexity: O(1) while the live list holds fewer than `atLeast` entries and `now` is past
    ///   every moved booking's end; otherwise O(*k* + *m*): *k* the live entries (at most about
    ///   the limit, since each walk empties the list of ended ones), *m* those moved; an earlier
    ///   `now` adds the ended list's entries not ended at it. Never O(history).
    @inline(__always)
    mutating func upcomingCount(_ user: Int, at now: Int64, reaching atLeast: Int32) -> Int32 {
        let state = states[user]
        let endedMayCount = Int64(state.endedMinute) &* 60 &+ Booking.durationSeconds > now
        if state.active < atLeast, !endedMayCount { return state.active }
        return countAndPrune(user, at: now, endedMayCount: endedMayCount)
    }

    private mutating func countAndPrune(_ user: Int, at now: Int64, endedMayCount: Bool) -> Int32 {
        var count: Int32 = 0
        var moved: [Int32] = []
        var previous: Int32 = -1
        var e = states[user].head
        while e >= 0 {
            let next = entries[Int(e)].next
            if Booking.isUpcoming(start: entries[Int(e)].start, at: now) {
                count &+= 1
                previous = e
            } else {
                if previous < 0 { states[user].head = next } else { entries[Int(previous)].next = next }
                moved.append(e)
            }
            e = next
        }
        if endedMayCount {
            var e = states[user].ended
            while e >= 0, Booking.isUpcoming(start: entries[Int(e)].start, at: now) {
                count &+= 1
                e = entries[Int(e)].next
            }
        }
        if !moved.isEmpty { moveToEnded(moved, of: user) }
        return count
    }

    /// Unlinked live entries into the user's ended list, keeping it ordered by start (latest first).
    ///
    /// - Complexity: O(*m* log *m*) in the entries moved, plus the ended entries that start later
    ///   than the earliest of them (none when bookings end in the order they start).
    private mutating func moveToEnded(_ moved: [Int32], of user: Int) {
        let sorted = moved.sorted { entries[Int($0)].start > entries[Int($1)].start }
        var previous: Int32 = -1
        var cursor = states[user].ended
        for m in sorted {
            let start = entries[Int(m)].start
            while cursor >= 0, entries[Int(cursor)].start > start {
                previous = cursor
                cursor = entries[Int(cursor)].next
            }
            entries[Int(m)].next = cursor
            if previous < 0 { states[user].ended = m } else { entries[Int(previous)].next = m }
            previous = m
        }
        states[user].active &-= Int32(truncatingIfNeeded: moved.count)
        updateEndedMinute(of: user)
    }

    mutating func updateEndedMinute(of user: Int) {
        let first = states[user].ended
        guard first >= 0 else {
            states[user].endedMinute = .min
            return
        }
        let start = entries[Int(first)].start
        let minute = start / 60 + (start % 60 > 0 ? 1 : 0)
        states[user].endedMinute = Int32(clamping: minute)
    }

    /// Adds an entry to the user's live list; `flags` ``holdFlag`` for a hold, which
    /// ``activeTotal`` does not count.
    @inline(__always)
    mutating func add(_ booking: BookingID, start: Int64, to user: Int, flags: UInt8 = 0) {
        let head = states[user].head
        let index: Int32
        if freeEntry >= 0 {
            index = freeEntry
            freeEntry = entries[Int(index)].next
            entries[Int(index)] = UserEntry(booking: booking, start: start, next: head, flags: flags)
        } else {
            index = Int32(truncatingIfNeeded: entries.count)
            entries.append(UserEntry(booking: booking, start: start, next: head, flags: flags))
        }
        states[user].active &+= 1
        states[user].head = index
        if flags & Self.holdFlag == 0 { activeTotal &+= 1 }
    }

    /// Removes `booking` (or a hold's entry) from the user's active bookings.
    ///
    /// - Complexity: O(*k*) in the live list for a booking that has not ended (a cancel); a
    ///   booking already moved to the ended list (displaced after its end) also walks the ended
    ///   entries that start later.
    mutating func remove(_ booking: BookingID, from user: Int, isHold: Bool = false) {
        if unlink(booking, from: user, ended: false) {
            states[user].active -= 1
        } else if unlink(booking, from: user, ended: true) {
            updateEndedMinute(of: user)
        } else {
            return
        }
        if !isHold { activeTotal -= 1 }
    }

    /// Unlinks `booking` from the user's live or ended list and frees its entry.
    private mutating func unlink(_ booking: BookingID, from user: Int, ended: Bool) -> Bool {
        unlinkEntries(of: user, ended: ended, firstOnly: true) { $0 == booking } > 0
    }

    /// Unlinks from the user's live or ended list the entries whose booking `matches` (only the
    /// first with `firstOnly`), frees them, and returns how many. The list's counts are the
    /// caller's to update.
    /// - Complexity: O(*k*) in the list's entries.
    mutating func unlinkEntries(of user: Int, ended: Bool, firstOnly: Bool, where matches: (BookingID) -> Bool)
        -> Int32
    {
        var previous: Int32 = -1
        var e = ended ? states[user].ended : states[user].head
        var removed: Int32 = 0
        while e >= 0 {
            let next = entries[Int(e)].next
            if matches(entries[Int(e)].booking) {
                if previous >= 0 {
                    entries[Int(previous)].next = next
                } else if ended {
                    states[user].ended = next
                } else {
                    states[user].head = next
                }
                entries[Int(e)].next = freeEntry
                freeEntry = e
                removed += 1
                if firstOnly { return removed }
            } else {
                previous = e
            }
            e = next
        }
        return removed
    }

    /// The booking ids of a user's active bookings, in no particular order.
    func activeBookings(of user: UserID) -> [BookingID] {
        guard let index = find(user) else { return [] }
        var result: [BookingID] = []
        for first in [states[index].head, states[index].ended] {
            var e = first
            while e >= 0 {
                if entries[Int(e)].flags & Self.holdFlag == 0 { result.append(entries[Int(e)].booking) }
                e = entries[Int(e)].next
            }
        }
        return result
    }
}
