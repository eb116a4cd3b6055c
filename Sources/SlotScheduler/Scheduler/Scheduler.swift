import Synchronization

/// The thread-safe face of the booking rules: safe to call from many threads and tasks at once.
///
/// **How it scales.** One lock taken per call, or one actor hop per call, makes two threads
/// slower than one on a 2-core machine. So the state is split: stations are spread over
/// *shards* (station index modulo the shard count) and users over *stripes* (the low bits of
/// a small user id, else a hash of it), each with its own lock (`LockedCells`: one atomic
/// word per cell, cells a cache-line pair apart). A
/// reservation locks its station's shard, then its user's stripe, and runs the same `Decisions`
/// as ``Ledger`` while holding both: validation and insert are one atomic step for the slot
/// *and* for the user's limit. Calls on different stations and users take different locks and
/// run in parallel.
///
/// **No deadlock.** Every operation takes at most one shard lock, then at most one stripe lock
/// at a time, always in that order.
public final class Scheduler: Sendable {
    public let rules: Rules
    /// The station shards' slot books, by shard number.
    let shards: LockedCells<SlotBook>
    /// The user stripes' user books, by stripe number.
    let stripes: LockedCells<UserBook>
    /// Where the shards keep each day's slots, for a prefetch before the shard's lock.
    let slotHints: SlotHints
    private let stripeMask: Int
    /// `2^64 / shards`, rounded up: ``shard(of:)-(Int32)`` as two multiplications.
    private let shardReciprocal: UInt64
    /// User ids below this are striped by their low bits, so each stripe indexes them directly.
    let directLimit: UInt64
    /// A direct id's index in its stripe: `id >> directShift` (the stripe is its low bits).
    let directShift: UInt64
    /// Set while restoring, before the scheduler is shared, when the events came from another
    /// shard layout: some booking ids then name no shard, or the wrong one.
    let restoredAcrossLayouts = Atomic<Bool>(false)
    /// The journal's events before the catalog change this scheduler was rebuilt at (that
    /// change's included), empty for one that was not (``events``). Set once, before it is shared.
    let eventsBefore = Mutex<[Event]>([])

    /// Creates an empty scheduler.
    ///
    /// - Parameters:
    ///   - rules: the catalog and policy to enforce.
    ///   - shards: station shards (1...4096); 1 gives the same booking ids as ``Ledger``.
    ///   - userStripes: user stripes, rounded up to a power of two.
    ///   - journaling: `false` keeps no event journal (``events`` stays empty).
    ///   - expectedUsers: users to pre-allocate for; not a limit. Ids below it find their state
    ///     by direct index in their stripe (16 bytes each, allocated now). Clamped to 0...2^23.
    ///   - expectedBookings: bookings to pre-allocate for; not a limit. Clamped to 0...2^23.
    public init(
        rules: Rules, shards: Int = 16, userStripes: Int = 64, journaling: Bool = true, expectedUsers: Int = 1024,
        expectedBookings: Int = 0
    ) {
        self.rules = rules
        let expectedUsers = Ledger.preallocation(expectedUsers)
        let expectedBookings = Ledger.preallocation(expectedBookings)
        let shardCount = max(1, min(shards, 4096))
        var stripeCount = 1
        while stripeCount < max(1, min(userStripes, 4096)) { stripeCount <<= 1 }
        let localSockets = SlotBook.localSockets(catalog: rules.catalog, shardCount: shardCount)
        let books = (0..<shardCount).map {
            var book = SlotBook(
                catalog: rules.catalog, shard: $0, of: shardCount, journaling: journaling, localSockets: localSockets)
            book.prefault(bookings: expectedBookings / shardCount)
            return book
        }
        self.shards = LockedCells(books)
        slotHints = SlotHints(shards: books)
        let shift = stripeCount.trailingZeroBitCount
        let directPerStripe = max(16, (expectedUsers + stripeCount - 1) / stripeCount)
        self.stripes = LockedCells(
            (0..<stripeCount).map { _ in
                var book = UserBook(directUsers: directPerStripe, idShift: shift)
                book.prefault(users: 0, bookings: expectedBookings / stripeCount)
                return book
            })
        stripeMask = stripeCount - 1
        shardReciprocal = UInt64.max / UInt64(shardCount) &+ 1
        directLimit = UInt64(directPerStripe) << UInt64(shift)
        directShift = UInt64(shift)
    }

    /// Validates the stations and policy and creates an empty scheduler.
    public convenience init(stations: [Station], policy: Policy) throws(InvalidValue) {
        self.init(rules: try Rules(catalog: try Catalog(stations), policy: policy))
    }

    public var shardCount: Int { shards.count }

    /// The shard number of a station (a catalog index): `station % shards`.
    ///
    /// Computed by multiplying with a stored reciprocal (Lemire's "fastmod", exact for every
    /// 32-bit index and shard count), not by a 64-bit division: the division's 40-odd cycles
    /// stood between every call and its shard's lock.
    @inline(__always)
    func shard(of station: Int32) -> Int {
        let fraction = shardReciprocal &* UInt64(UInt32(bitPattern: station))
        return Int(truncatingIfNeeded: fraction.multipliedFullWidth(by: UInt64(shards.count)).high)
    }

    /// The stripe number of a user.
    @inline(__always)
    func stripe(of user: UserID) -> Int {
        let id = user.rawValue
        let spread = id < directLimit ? id : (id &* 0x9E37_79B9_7F4A_7C15) >> 40
        return Int(truncatingIfNeeded: spread) & stripeMask
    }

    /// The shard holding `booking`: the one its id names or, after a restore across shard
    /// layouts, the one that restored it (each shard asked in turn).
    ///
    /// A released id names the shard that had it or, released before such a restore, shard 0.
    /// - Complexity: O(1); O(shards) for an id not assigned by this layout after such a restore.
    func shard(of booking: BookingID) -> Int? {
        let index = Int(truncatingIfNeeded: booking.rawValue >> SlotBook.shardShift)
        guard restoredAcrossLayouts.load(ordering: .relaxed) else { return index < shards.count ? index : nil }
        let named = index & (1 << (SlotBook.epochShift - SlotBook.shardShift) - 1)
        if named < shards.count, shards.withLock(named, { $0.assignedRecord(of: booking) != nil }) { return named }
        if let shard = shards.indices.first(where: { shards.withLock($0) { $0.assignedRecord(of: booking) != nil } }) {
            return shard
        }
        // Released before the snapshot restored: every shard knows the same high-water marks.
        return shards.withLock(0) { $0.wasReleased(booking) } ? 0 : nil
    }

    /// Books one slot for one user at `now`, or throws why not. Atomic: two concurrent
    /// reservations of one slot never both succeed, and concurrent reservations never take a
    /// user past their limit.
    public func reserve(_ request: ReservationRequest, at now: Instant) throws(Rejection) -> Booking {
        try book(request, at: now).booking
    }

    /// ``reserve(_:at:)-(ReservationRequest,_)``, saying whether the booking is new or the one an
    /// earlier request with the same request id made (``Reservation/isReplay``; its status may be
    /// cancelled by now).
    public func book(_ request: ReservationRequest, at now: Instant) throws(Rejection) -> Reservation {
        try apply(.reserve(request), at: now).reservation()
    }

    /// The fast path; see ``Ledger/attempt(_:for:at:)``.
    @inline(__always)
    public func attempt(_ ref: SlotRef, for user: UserID, at now: Instant) -> ReservationAttempt {
        guard rules.catalog.owns(ref) else { return ReservationAttempt(reason: .unknownStation, start: 0) }
        // `self.rules`, not a local copy: a `let` of the class is read in place, where a local
        // copied its 277 bytes on every call (callgrind: 52 instructions in `memcpy`).
        return withBooks(of: ref, user: user) { slots, users in
            Decisions.reserve(
                ref, user: user, requestID: nil, reminder: nil, now: now.secondsSinceEpoch, rules: self.rules,
                slots: &slots, users: &users)
        }
    }

    /// Cancels a booking; see ``Ledger/cancel(_:by:at:)``.
    @discardableResult
    public func cancel(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.cancel(id, user: user), at: now).booking()
    }

    /// Changes availability on a date; see ``Ledger/changeAvailability(_:onBookings:at:)``.
    @discardableResult
    public func changeAvailability(
        _ change: AvailabilityChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) throws(Rejection) -> [Booking] {
        try apply(.changeAvailability(change, onBookings: rule), at: now).displaced()
    }
}
