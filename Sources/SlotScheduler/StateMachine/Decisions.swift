/// The stateful booking decisions, written once and shared by ``Ledger`` (one thread) and
/// ``Scheduler`` (a shard of stations plus a stripe of users, each under its own lock).
///
/// Each function validates and commits as one step on the books it is given: callers make the
/// step atomic by holding both books exclusively for its duration.
enum Decisions {
    /// Reserves `ref` for `user`, checking, in order: request id, time rules
    /// (`Rules.checkTime`), availability, occupancy, the user's limit.
    ///
    /// - Complexity: O(1), plus O(*k*) in the user's active bookings once they reach the limit.
    @inline(__always)
    static func reserve(
        _ ref: SlotRef, user: UserID, requestID: RequestID?, reminder: Int64?, now: Int64, rules: Rules,
        slots: inout SlotBook, users: inout UserBook
    ) -> ReservationAttempt {
        if let seen = remembered(requestID, of: user, users: users) {
            guard seen.ref == ref, seen.reminder == reminder else {
                return ReservationAttempt(reason: .conflictingRequestID, start: 0)
            }
            return ReservationAttempt(booking: seen.booking, start: 0, isRepeat: true)
        }
        let (reason, start, page, day) = checkSlot(ref, reminder: reminder, now: now, rules: rules, slots: &slots)
        if let reason { return ReservationAttempt(reason: reason, start: start) }
        if let taken = slots.takenReason(ref, word: day, now: now) {
            return ReservationAttempt(reason: taken, start: start)
        }
        let u = users.findOrInsert(user)
        let limit = Decisions.limit(user, u, now: now, rules: rules, users: &users)
        if users.upcomingCount(u, at: now, reaching: limit) >= limit {
            return ReservationAttempt(reason: .userLimitReached, start: start)
        }
        let id = commit(
            ResolvedRequest(ref: ref, user: user, requestID: requestID, reminder: reminder), start: start,
            block: page, user: u, now: now, slots: &slots, users: &users)
        return ReservationAttempt(booking: id, start: start)
    }

    /// One resolved request in, the finished outcome out: the booking made (or, for a repeated
    /// request id, the one it made before), or the full refusal. ``Ledger`` and ``Scheduler``
    /// both call this; they differ only in the locks they hold around it.
    static func reserve(
        _ request: ResolvedRequest, now: Int64, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) -> Result<Reservation, Rejection> {
        let attempt = reserve(
            request.ref, user: request.user, requestID: request.requestID, reminder: request.reminder, now: now,
            rules: rules, slots: &slots, users: &users)
        // A repeated request id names a booking of the same slot, so one this book holds; a
        // remembered booking it does not hold can only be another slot's: a conflicting id.
        if let id = attempt.booking, let record = slots.record(of: id) {
            return .success(
                Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: attempt.isRepeat))
        }
        var rejection = rules.rejection(
            attempt.reason ?? .conflictingRequestID, ref: request.ref, user: request.user,
            requestID: request.requestID, reminder: request.reminder, start: attempt.start, now: now)
        if rejection.reason == .userLimitReached, rules.noShowRule != nil, let u = users.find(request.user) {
            rejection.limit = Int(limit(request.user, u, now: now, rules: rules, users: &users))
        }
        return .failure(rejection)
    }

    /// Records a booking of `request` starting at `start`, made at `now` (journalled as `kind`:
    /// a reservation, or a hold's confirmation): the commit step of a reservation, decided (``reserve(_:user:requestID:reminder:now:rules:slots:users:)``) or
    /// replayed (``Replay``). `block` is the slot's day block, `user` the user's index.
    /// - Returns: the new booking's id.
    @inline(__always)
    static func commit(
        _ request: ResolvedRequest, start: Int64, block: Int, user u: Int, now: Int64, slots: inout SlotBook,
        users: inout UserBook, as kind: JournalEntry.Kind = .reserved
    ) -> BookingID {
        let record = slots.records.count
        let id = slots.bookingID(record: record)
        slots.records.append(BookingRecord(request, start: start, createdAt: now, status: .active))
        slots.occupy(request.ref, block: block, record: record)
        if request.reminder != nil { slots.indexReminder(of: record) }
        users.add(id, start: start, to: u)
        remember(request, booking: id, record: record, slots: &slots, users: &users)
        slots.log(kind, record, at: now)
        return id
    }

    /// Remembers the request id of `request`, if it has one, as booking `id` (record `record`).
    @inline(__always)
    static func remember(
        _ request: ResolvedRequest, booking id: BookingID, record: Int, slots: inout SlotBook, users: inout UserBook
    ) {
        guard let requestID = request.requestID else { return }
        slots.requestIDs[Int32(record)] = requestID
        users.requests[UserBook.RequestKey(user: request.user, id: requestID)] = .init(
            booking: id, ref: request.ref, reminder: request.reminder)
    }

    /// Cancels booking `record` for `user`: owner only, active only, before the cutoff.
    static func cancel(
        record: Int, by user: UserID, now: Int64, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) -> Rejection.Reason? {
        let booking = slots.records[record]
        if let reason = rules.cancelReason(
            owner: booking.user, status: booking.status, start: booking.start, by: user, now: now)
        {
            return reason
        }
        close(record, as: .cancelled, now: now, slots: &slots, users: &users)
        return nil
    }

    /// Closes active `record` at `now` with its final status (cancelled, displaced or fulfilled):
    /// its slot freed, its user's entry closed, journalled. The commit of a cancel, a displacement
    /// and a check-out, decided here or replayed (``Replay``).
    static func close(
        _ record: Int, as status: Booking.Status, now: Int64, slots: inout SlotBook, users: inout some UserBooks
    ) {
        let r = slots.records[record]
        let id = slots.bookingID(record: record)
        release(record, as: status, slots: &slots)
        users.withBook(of: r.user) { $0.close(id, of: r.user, day: r.ref.day) }
        let kind: JournalEntry.Kind =
            switch status {
            case .cancelled: .cancelled
            case .fulfilled: .checkedOut
            case .active, .displaced: .displaced
            }
        slots.log(kind, record, at: now)
    }

    /// Frees the slot of an active record and gives it its final status.
    static func release(_ record: Int, as status: Booking.Status, slots: inout SlotBook) {
        let ref = slots.records[record].ref
        slots.records[record].status = status
        let page = slots.pageIndex(ref.day)
        slots.occupy(ref, block: page, record: nil)
    }

    /// The local sockets an availability change targets, or the reason it cannot apply.
    static func targets(of change: AvailabilityChange, rules: Rules, slots: SlotBook) -> Result<[Int], Rejection> {
        let catalog = rules.catalog
        let station: Int32
        do throws(Rejection) { station = try catalog.index(of: change.station, on: change.date) } catch {
            return .failure(error)
        }
        let sockets = catalog.station(at: station).sockets
        let flat = catalog.socketsOfStation[Int(station)]
        if let socket = change.socket {
            guard let i = sockets.firstIndex(where: { $0.id == socket }) else {
                return .failure(Rejection(.unknownSocket, value: socket.rawValue))
            }
            return .success([Int(slots.localSocket[Int(flat[i])])])
        }
        return .success(flat.map { Int(slots.localSocket[Int($0)]) })
    }

    /// Applies an availability change on one shard. Bookings in hours it closes are displaced
    /// (and returned, by record) or, under ``DisplacementRule/refuse``, the change is refused.
    static func changeAvailability(
        _ change: AvailabilityChange, rule: DisplacementRule, now: Int64, rules: Rules, slots: inout SlotBook,
        users: inout some UserBooks
    ) -> Result<[Int], Rejection> {
        let sockets: [Int]
        switch availabilityTargets(of: change, rules: rules, slots: slots) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let found): sockets = found
        }
        var displaced: [Int] = []
        for socket in sockets {
            let mask = change.hours?.mask ?? slots.regular[socket]
            for hour in 0..<24 where mask & (1 << UInt32(hour)) == 0 {
                if let record = slots.occupant(localSocket: socket, day: change.date.dayNumber, hour: hour) {
                    displaced.append(record)
                }
            }
        }
        if rule == .refuse, !displaced.isEmpty {
            return .failure(Rejection(.slotHasBookings, value: change.description, limit: displaced.count))
        }
        commitAvailability(change, sockets: sockets, now: now, slots: &slots)
        for record in displaced { close(record, as: .displaced, now: now, slots: &slots, users: &users) }
        return .success(displaced)
    }

    /// The local sockets `change` targets on a date not released, or why it cannot apply.
    static func availabilityTargets(of change: AvailabilityChange, rules: Rules, slots: SlotBook) -> Result<
        [Int], Rejection
    > {
        let found = targets(of: change, rules: rules, slots: slots)
        if case .success = found, change.date.dayNumber < slots.releasedBefore {
            return .failure(Rejection(.released, value: change.description, date: change.date))
        }
        return found
    }

    /// Sets the hours of `sockets` (local) on the change's date and journals the change: its
    /// commit, decided here or replayed. Displacements are journalled after it.
    static func commitAvailability(_ change: AvailabilityChange, sockets: [Int], now: Int64, slots: inout SlotBook) {
        let page = slots.pageIndex(change.date.dayNumber)
        for socket in sockets {
            slots.setOpenHours(change.hours?.mask ?? slots.regular[socket], localSocket: socket, block: page)
        }
        slots.changes.append(change)
        slots.log(.availabilityChanged, slots.changes.count - 1, at: now)
    }
}

/// A ``ReservationRequest`` with its slot resolved against the catalog and its reminder in seconds.
struct ResolvedRequest: Sendable {
    var ref: SlotRef
    var user: UserID
    var requestID: RequestID?
    var reminder: Int64?
}

extension Rules {
    /// ``resolve(_:)`` with the request's other fields: what ``Decisions`` takes.
    func resolved(_ request: ReservationRequest) throws(Rejection) -> ResolvedRequest {
        ResolvedRequest(
            ref: try resolve(request), user: request.user, requestID: request.requestID,
            reminder: request.reminderSeconds)
    }
}

/// The outcome of the fast reservation path: a booking id, or the reason it was refused.
public struct ReservationAttempt: Sendable, Equatable {
    /// The booking made (or, for a repeated request id, the one made before).
    public let booking: BookingID?
    public let reason: Rejection.Reason?
    /// The slot's start instant in seconds, when it was computed.
    let start: Int64
    /// Whether this repeated an earlier request id.
    public let isRepeat: Bool

    init(booking: BookingID, start: Int64, isRepeat: Bool = false) {
        self.booking = booking
        self.reason = nil
        self.start = start
        self.isRepeat = isRepeat
    }
    init(reason: Rejection.Reason, start: Int64) {
        self.booking = nil
        self.reason = reason
        self.start = start
        self.isRepeat = false
    }

    public var isAccepted: Bool { reason == nil }
}
