import SlotScheduler

/// What a model command gives: the value, or the bare refusal reason (the library's
/// ``Rejection`` carries details the model does not model).
package enum ModelResult<Success> {
    case success(Success)
    case failure(Rejection.Reason)
}

extension ModelResult: Equatable where Success: Equatable {}
extension ModelResult: Sendable where Success: Sendable {}

/// The booking rules written out the obvious way: the specification that `Ledger` and
/// `Scheduler` (the fast implementations) are checked against, by the property tests
/// (`Tests/PropertyTests`, every command compared, I10) and by `schedule-sim` (every command of a
/// deterministic run compared).
///
/// Plain values, dictionaries keyed by slot and user, and the rules in the library's check order
/// (`Decisions.checkSlot`, `Rules.checkTime`), each once. It shares no state and no decision code
/// with the library; local time comes from a ``ModelClock``. Every command is split into a
/// `decide…` (what the rules say, changing nothing) and a `commit…` (the change an accepted
/// command makes), so the simulator can follow the implementation when the two disagree.
///
/// - Complexity: the commands are O(1) expected, except the per-user counts, O(the user's active
///   bookings and holds), a change, O(the station's sockets × 24), and the queries, O(bookings).
package struct ReferenceModel: Sendable {
    /// The stations in service, in the order they first entered it (as `Catalog.stations`).
    package internal(set) var stations: [Station]
    package let policy: Policy
    var clock: any ModelClock
    /// Every booking ever made; booking `i` has id `i + 1`.
    package private(set) var bookings: [Booking] = []
    /// Every hold ever made, in order.
    package internal(set) var holds: [ModelHold] = []
    /// Dates before this one are released (`Ledger.releaseDays`): their bookings are no longer
    /// held, their request ids are forgotten, and nothing on them can be booked or changed.
    package private(set) var releasedBefore: LocalDate?

    // Indexes over the state above (derived: each is updated where the state changes).
    var stationIndex: [StationID: Int]
    /// Every station ever in service, in the order it first was: where one put back in service
    /// returns to (``changeCatalog(_:rule:at:clock:)``).
    var stationOrder: [StationID] = []
    /// Regular hours per (station, socket): also which sockets exist.
    var regular: [SocketKey: HourSet]
    /// The rules that are functions of the policy alone (each user's limit among them).
    package let rules: ModelRules
    /// The last availability change of each socket-date.
    var overrides: [SocketDate: HourSet] = [:]
    /// The active booking at a slot.
    private var activeAt: [Slot: Int] = [:]
    /// Each user's active bookings (released or not), by start.
    private var activeOf: [UserID: TimeOrdered] = [:]
    /// The hold in state `held` (live or expired) at a slot.
    var heldAt: [Slot: Int] = [:]
    /// Each user's holds that can still count (held or lapsed), by expiry.
    private var holdsOf: [UserID: TimeOrdered] = [:]
    /// The last hold of a user at a slot: what a confirm or release names.
    private var lastHold: [UserSlot: Int] = [:]
    /// Accepted requests with an id, in order, per (user, request id).
    private var requests: [UserRequest: [Remembered]] = [:]
    /// Accepted reschedules with an id (their own namespace): the first per (user, request id).
    private var moves: [UserRequest: RememberedMove] = [:]

    struct SocketKey: Hashable, Sendable {
        var station: StationID
        var socket: SocketID
    }
    struct SocketDate: Hashable, Sendable {
        var socket: SocketKey
        var date: LocalDate
    }
    struct UserSlot: Hashable, Sendable {
        var user: UserID
        var slot: Slot
    }
    struct UserRequest: Hashable, Sendable {
        var user: UserID
        var id: RequestID
    }
    struct Remembered: Sendable, Equatable {
        var slot: Slot
        var reminder: Int64?
        var booking: BookingID
    }
    struct RememberedMove: Sendable, Equatable {
        var booking: BookingID
        var to: Slot
    }

    package struct ModelHold: Sendable, Equatable {
        package var hold: Hold
        package var state: State

        package enum State: Sendable, Equatable {
            case held
            /// Confirmed into booking `index + 1`.
            case confirmed(Int)
            case released
            /// Expired, then its slot was taken by another booking or hold.
            case lapsed
        }

        /// Whether it counts against its user's limits at `now`: until its expiry, unless
        /// confirmed or released.
        package func counts(at now: Int64) -> Bool {
            (state == .held || state == .lapsed) && now < hold.expiresAt.secondsSinceEpoch
        }
    }

    package init(stations: [Station], policy: Policy, clock: any ModelClock) {
        self.stations = stations
        self.policy = policy
        self.clock = clock
        var stationIndex: [StationID: Int] = [:]
        var regular: [SocketKey: HourSet] = [:]
        for (i, station) in stations.enumerated() {
            if stationIndex[station.id] == nil { stationIndex[station.id] = i }
            for socket in station.sockets where regular[SocketKey(station: station.id, socket: socket.id)] == nil {
                regular[SocketKey(station: station.id, socket: socket.id)] = socket.openingHours ?? station.openingHours
            }
        }
        self.stationIndex = stationIndex
        self.regular = regular
        stationOrder = stations.map(\.id)
        rules = ModelRules(policy: policy)
    }

    // MARK: Lookups

    package func station(_ id: StationID) -> Station? { stationIndex[id].map { stations[$0] } }

    package func limit(for user: UserID) -> Int { rules.limit(for: user) }

    package func regularHours(_ station: Station, _ socket: SocketID) -> HourSet {
        regular[SocketKey(station: station.id, socket: socket)] ?? .closed
    }

    package func openHours(_ station: Station, _ socket: SocketID, on date: LocalDate) -> HourSet {
        let key = SocketKey(station: station.id, socket: socket)
        return overrides[SocketDate(socket: key, date: date)] ?? regular[key] ?? .closed
    }

    package func isReleased(_ booking: Booking) -> Bool { isReleased(booking.slot.date) }

    /// Whether `date` is before the released dates' end: its bookings and holds are forgotten.
    package func isReleased(_ date: LocalDate) -> Bool { releasedBefore.map { date < $0 } ?? false }

    /// The bookings not released: what the library still holds.
    package var heldBookings: [Booking] { bookings.filter { !isReleased($0) } }

    package func activeBooking(at slot: Slot) -> Booking? { activeAt[slot].map { bookings[$0] } }

    /// The booking with `id`, by its index.
    func index(of id: BookingID) -> Int? {
        id.rawValue >= 1 && id.rawValue <= UInt64(bookings.count) ? Int(id.rawValue - 1) : nil
    }

    /// Upcoming bookings plus holds that count (``ModelHold/counts(at:)``).
    package func upcomingCount(of user: UserID, at now: Int64) -> Int {
        upcomingBookings(of: user, at: now) + holdCount(of: user, at: now)
    }

    func upcomingBookings(of user: UserID, at now: Int64, except: Int? = nil) -> Int {
        // Those that have not ended: a binary search by start (every booking lasts as long).
        (activeOf[user]?.counting { ModelRules.isUpcoming(start: $0, at: now) } ?? []).filter {
            $0.index != except && !isReleased(bookings[$0.index])
                && bookings[$0.index].status == .active
        }.count
    }

    package func holdCount(of user: UserID, at now: Int64) -> Int {
        (holdsOf[user]?.counting { now < $0 } ?? []).filter {
            holds[$0.index].counts(at: now) && !isReleased(holds[$0.index].hold.slot.date)
        }.count
    }

    /// The index of the hold that has `slot` (held, not lapsed), live or expired.
    func currentHold(at slot: Slot) -> Int? { heldAt[slot] }

    func liveHold(at slot: Slot, now: Int64) -> Int? {
        currentHold(at: slot).flatMap { now < holds[$0].hold.expiresAt.secondsSinceEpoch ? $0 : nil }
    }

    /// The holds that live at `now`, by slot.
    package func liveHolds(at now: Instant) -> [Hold] {
        holds.filter { $0.state == .held && now < $0.hold.expiresAt && !isReleased($0.hold.slot.date) }.map(\.hold)
            .sorted { $0.slot < $1.slot }
    }

    // MARK: The rules, each once

    /// Why `slot` names nothing in the catalog, if it does not.
    package func unresolved(_ slot: Slot) -> Rejection.Reason? {
        guard stationIndex[slot.station] != nil else { return .unknownStation }
        guard regular[SocketKey(station: slot.station, socket: slot.socket)] != nil else { return .unknownSocket }
        return (0...23).contains(slot.hour) ? nil : .invalidHour
    }

    /// The time rules, in the library's order. Returns the reason, if any, and the start.
    package func timeCheck(_ slot: Slot, reminder: Int64?, now: Int64) -> (Rejection.Reason?, Int64) {
        guard let start = clock.start(of: slot) else { return (.nonexistentLocalTime, 0) }
        let today = clock.localDay(of: slot.station, at: now)
        if let reason = rules.timeRefusal(start: start, day: slot.date.dayNumber, today: today, now: now) {
            return (reason, start)
        }
        if let reminder {
            if reminder < 0 || reminder > 31_622_400 { return (.invalidReminder, start) }
            if start - reminder < now { return (.reminderInPast, start) }
        }
        return (nil, start)
    }

    /// The time rules, the released dates and the opening hours of a known slot.
    func availabilityCheck(_ slot: Slot, reminder: Int64?, now: Int64) -> (Rejection.Reason?, Int64) {
        let (reason, start) = timeCheck(slot, reminder: reminder, now: now)
        if let reason { return (reason, start) }
        if let releasedBefore, slot.date < releasedBefore { return (.slotInPast, start) }
        let key = SocketKey(station: slot.station, socket: slot.socket)
        let open = overrides[SocketDate(socket: key, date: slot.date)] ?? regular[key] ?? .closed
        if open.isEmpty { return (.socketClosed, start) }
        if !open.contains(slot.hour) { return (.outsideOpeningHours, start) }
        return (nil, start)
    }

    /// The checks of a hold or reserve up to the occupancy, in the library's order.
    package func slotCheck(_ slot: Slot, reminder: Int64?, now: Int64) -> (Rejection.Reason?, Int64) {
        if let reason = unresolved(slot) { return (reason, 0) }
        return availabilityCheck(slot, reminder: reminder, now: now)
    }

    /// Whether `slot` is taken for a new booking or hold at `now`, and why.
    func occupancy(_ slot: Slot, except booking: Int? = nil, now: Int64) -> Rejection.Reason? {
        if let holder = activeAt[slot], holder != booking { return .slotTaken }
        if liveHold(at: slot, now: now) != nil { return .slotHeld }
        return nil
    }

    // MARK: Reserve

    /// What the rules say about a reservation.
    package enum ReserveDecision: Equatable, Sendable {
        /// Accept: a new booking starting at `start`.
        case accept(start: Int64)
        /// A repeated request id: the booking the first request made.
        case repeatOf(Booking)
        case refuse(Rejection.Reason)
    }

    /// What `user`'s reservation request `id` made, unless its booking, wherever it is now, was
    /// released: a release forgets the request ids of what it releases.
    func remembered(_ id: RequestID?, of user: UserID) -> Remembered? {
        guard let id else { return nil }
        return requests[UserRequest(user: user, id: id)]?.first { !isReleased(bookings[Int($0.booking.rawValue) - 1]) }
    }

    package func decideReserve(_ request: ReservationRequest, at now: Instant) -> ReserveDecision {
        let slot = request.slot
        if let reason = unresolved(slot) { return .refuse(reason) }
        let reminder = request.reminder.map { $0.components.seconds }
        if let seen = remembered(request.requestID, of: request.user) {
            guard seen.slot == slot, seen.reminder == reminder else { return .refuse(.conflictingRequestID) }
            return .repeatOf(bookings[Int(seen.booking.rawValue) - 1])
        }
        let t = now.secondsSinceEpoch
        let (reason, start) = availabilityCheck(slot, reminder: reminder, now: t)
        if let reason { return .refuse(reason) }
        if let reason = occupancy(slot, now: t) { return .refuse(reason) }
        if !ModelRules.admits(upcoming: upcomingCount(of: request.user, at: t), limit: limit(for: request.user, at: t))
        {
            return .refuse(.userLimitReached)
        }
        return .accept(start: start)
    }

    /// Makes the booking of an accepted reservation (or one the implementation made: `start` from
    /// the clock) and remembers its request id.
    @discardableResult
    package mutating func commitReserve(_ request: ReservationRequest, start: Int64? = nil, at now: Instant)
        -> Booking
    {
        let slot = request.slot
        lapseHold(at: slot)
        let booking = Booking(
            id: BookingID(UInt64(bookings.count + 1)), slot: slot, user: request.user,
            start: Instant(secondsSinceEpoch: start ?? clock.start(of: slot) ?? 0), createdAt: now,
            requestID: request.requestID, reminderOffsetSeconds: request.reminder.map { $0.components.seconds })
        add(booking)
        if let id = request.requestID {
            requests[UserRequest(user: request.user, id: id), default: []].append(
                Remembered(slot: slot, reminder: booking.reminderOffsetSeconds, booking: booking.id))
        }
        return booking
    }

    package mutating func reserve(_ request: ReservationRequest, at now: Instant) -> ModelResult<Booking> {
        switch decideReserve(request, at: now) {
        case .refuse(let reason): return .failure(reason)
        case .repeatOf(let booking): return .success(booking)
        case .accept(let start): return .success(commitReserve(request, start: start, at: now))
        }
    }

    private mutating func add(_ booking: Booking) {
        let index = bookings.count
        bookings.append(booking)
        activeAt[booking.slot] = index
        let new = entry(index)
        activeOf[booking.user, default: TimeOrdered()].insert(new)
    }

    /// A booking's place in its user's ``activeOf``.
    private func entry(_ index: Int) -> TimeOrdered.Entry {
        TimeOrdered.Entry(time: bookings[index].start.secondsSinceEpoch, index: index)
    }

    /// A hold's place in its user's ``holdsOf``.
    private func holdEntry(_ h: Int) -> TimeOrdered.Entry {
        TimeOrdered.Entry(time: holds[h].hold.expiresAt.secondsSinceEpoch, index: h)
    }

    /// Ends an active booking (cancelled, displaced or fulfilled): its slot is free again.
    mutating func end(_ index: Int, as status: Booking.Status) {
        bookings[index].status = status
        let booking = bookings[index]
        if activeAt[booking.slot] == index { activeAt[booking.slot] = nil }
        let old = entry(index)
        activeOf[booking.user]?.remove(old)
    }

    // MARK: Cancel

    package func decideCancel(_ id: BookingID, by user: UserID, at now: Instant) -> Rejection.Reason? {
        guard let index = index(of: id) else { return .unknownBooking }
        let booking = bookings[index]
        guard !isReleased(booking) else { return .released }
        guard booking.user == user else { return .notOwner }
        if let reason = ModelRules.endedReason(booking.status) { return reason }
        guard now.secondsSinceEpoch < rules.cancelDeadline(start: booking.start.secondsSinceEpoch) else {
            return .cancellationCutoffPassed
        }
        return nil
    }

    @discardableResult
    package mutating func commitCancel(_ id: BookingID) -> Booking? {
        guard let index = index(of: id) else { return nil }
        end(index, as: .cancelled)
        return bookings[index]
    }

    package mutating func cancel(_ id: BookingID, by user: UserID, at now: Instant) -> ModelResult<Booking> {
        if let reason = decideCancel(id, by: user, at: now) { return .failure(reason) }
        return commitCancel(id).map { .success($0) } ?? .failure(.unknownBooking)
    }

    // MARK: Availability

    /// The sockets a change sets, or why it names none.
    func sockets(of change: AvailabilityChange) -> ModelResult<[SocketID]> {
        guard let station = station(change.station) else { return .failure(.unknownStation) }
        guard let socket = change.socket else { return .success(station.sockets.map(\.id)) }
        guard regular[SocketKey(station: station.id, socket: socket)] != nil else { return .failure(.unknownSocket) }
        return .success([socket])
    }

    /// The indexes of the bookings a change displaces (by socket, then hour), or its refusal.
    package func decideChange(_ change: AvailabilityChange, rule: DisplacementRule) -> ModelResult<[Int]> {
        let sockets: [SocketID]
        switch self.sockets(of: change) {
        case .failure(let reason): return .failure(reason)
        case .success(let list): sockets = list
        }
        if let releasedBefore, change.date < releasedBefore { return .failure(.released) }
        var displaced: [Int] = []
        for socket in sockets {
            let hours = change.hours ?? regular[SocketKey(station: change.station, socket: socket)] ?? .closed
            for hour in 0..<24 where !hours.contains(hour) {
                let slot = Slot(station: change.station, socket: socket, date: change.date, hour: hour)
                if let index = activeAt[slot] { displaced.append(index) }
            }
        }
        if rule == .refuse, !displaced.isEmpty { return .failure(.slotHasBookings) }
        return .success(displaced)
    }

    /// Sets the hours of an accepted change and displaces `displaced`.
    package mutating func commitChange(_ change: AvailabilityChange, displacing displaced: [Int]) {
        guard case .success(let sockets) = self.sockets(of: change) else { return }
        for socket in sockets {
            let key = SocketKey(station: change.station, socket: socket)
            overrides[SocketDate(socket: key, date: change.date)] = change.hours ?? regular[key] ?? .closed
        }
        for index in displaced { end(index, as: .displaced) }
    }

    package mutating func changeAvailability(
        _ change: AvailabilityChange, rule: DisplacementRule, at now: Instant
    ) -> ModelResult<[Booking]> {
        switch decideChange(change, rule: rule) {
        case .failure(let reason): return .failure(reason)
        case .success(let displaced):
            commitChange(change, displacing: displaced)
            return .success(displaced.map { bookings[$0] })
        }
    }

    // MARK: Release

    /// Releases the dates before `cutoff`, if every station's date at `now` is at least it.
    package mutating func release(before cutoff: LocalDate, at now: Instant) -> Bool {
        guard stations.allSatisfy({ cutoff.dayNumber <= clock.localDay(of: $0.id, at: now.secondsSinceEpoch) })
        else { return false }
        releasedBefore = max(releasedBefore ?? cutoff, cutoff)
        return true
    }

    // MARK: Holds

    /// The slot is taken by a new booking or hold: an expired hold of it lapses.
    mutating func lapseHold(at slot: Slot) {
        if let h = heldAt.removeValue(forKey: slot) { holds[h].state = .lapsed }
    }

    package func decideHold(_ slot: Slot, for user: UserID, reminder: Int64?, at now: Instant) -> ReserveDecision {
        let t = now.secondsSinceEpoch
        let (reason, start) = slotCheck(slot, reminder: reminder, now: t)
        if let reason { return .refuse(reason) }
        if let reason = occupancy(slot, now: t) { return .refuse(reason) }
        if !ModelRules.admits(upcoming: upcomingCount(of: user, at: t), limit: limit(for: user, at: t)) {
            return .refuse(.userLimitReached)
        }
        if !rules.admitsHold(live: holdCount(of: user, at: t)) { return .refuse(.holdLimitReached) }
        return .accept(start: start)
    }

    @discardableResult
    package mutating func commitHold(_ slot: Slot, for user: UserID, reminder: Int64?, start: Int64, at now: Instant)
        -> Hold
    {
        lapseHold(at: slot)
        let hold = Hold(
            slot: slot, user: user, start: Instant(secondsSinceEpoch: start), createdAt: now,
            expiresAt: Instant(secondsSinceEpoch: rules.holdExpiry(madeAt: now.secondsSinceEpoch)),
            reminderOffsetSeconds: reminder)
        let index = holds.count
        holds.append(ModelHold(hold: hold, state: .held))
        heldAt[slot] = index
        let new = holdEntry(index)
        holdsOf[user, default: TimeOrdered()].insert(new)
        lastHold[UserSlot(user: user, slot: slot)] = index
        return hold
    }

    package mutating func hold(_ slot: Slot, for user: UserID, reminder: Int64?, at now: Instant) -> ModelResult<Hold> {
        switch decideHold(slot, for: user, reminder: reminder, at: now) {
        case .refuse(let reason): return .failure(reason)
        case .repeatOf: return .failure(.slotHeld)
        case .accept(let start): return .success(commitHold(slot, for: user, reminder: reminder, start: start, at: now))
        }
    }

    /// The hold a confirm or release of `slot` by `user` names, or why there is none to act on.
    func namedHold(_ slot: Slot, by user: UserID, at now: Instant) -> ModelResult<Int> {
        if let reason = unresolved(slot) { return .failure(reason) }
        if isReleased(slot.date) { return .failure(.released) }
        guard let h = lastHold[UserSlot(user: user, slot: slot)] else { return .failure(.unknownHold) }
        return .success(h)
    }

    /// Leaves the `held` state: the hold no longer has its slot or counts.
    private mutating func settle(_ h: Int, as state: ModelHold.State) {
        holds[h].state = state
        if heldAt[holds[h].hold.slot] == h { heldAt[holds[h].hold.slot] = nil }
        let old = holdEntry(h)
        holdsOf[holds[h].hold.user]?.remove(old)
    }

    package mutating func confirm(_ slot: Slot, by user: UserID, at now: Instant) -> ModelResult<Booking> {
        let h: Int
        switch namedHold(slot, by: user, at: now) {
        case .failure(let reason): return .failure(reason)
        case .success(let index): h = index
        }
        let hold = holds[h].hold
        switch holds[h].state {
        case .released: return .failure(.unknownHold)
        case .confirmed(let index): return .success(bookings[index])
        case .lapsed: return .failure(.holdExpired)
        case .held: break
        }
        if now >= hold.expiresAt { return .failure(.holdExpired) }
        let (reason, start) = slotCheck(slot, reminder: hold.reminderOffsetSeconds, now: now.secondsSinceEpoch)
        if let reason { return .failure(reason) }
        // The hold being confirmed counts among them already.
        let t = now.secondsSinceEpoch
        if !ModelRules.admits(upcoming: upcomingCount(of: user, at: t) - 1, limit: limit(for: user, at: t)) {
            return .failure(.userLimitReached)
        }
        let booking = Booking(
            id: BookingID(UInt64(bookings.count + 1)), slot: slot, user: user,
            start: Instant(secondsSinceEpoch: start), createdAt: now, reminderOffsetSeconds: hold.reminderOffsetSeconds)
        settle(h, as: .confirmed(bookings.count))
        add(booking)
        return .success(booking)
    }

    package mutating func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) -> ModelResult<Hold> {
        let h: Int
        switch namedHold(slot, by: user, at: now) {
        case .failure(let reason): return .failure(reason)
        case .success(let index): h = index
        }
        switch holds[h].state {
        case .released, .confirmed: return .failure(.unknownHold)
        case .lapsed: return .failure(.holdExpired)
        case .held: break
        }
        if now >= holds[h].hold.expiresAt { return .failure(.holdExpired) }
        settle(h, as: .released)
        return .success(holds[h].hold)
    }

    // MARK: Reschedule

    /// Moves a booking to another slot of its station: the request id, owner, active, the change
    /// cutoff, same station, time rules with the booking's reminder, availability, the slot free
    /// or the booking's own, and the limit counting the user's *other* upcoming bookings.
    package mutating func reschedule(_ request: RescheduleRequest, at now: Instant) -> ModelResult<Booking> {
        let to = request.slot
        if let reason = unresolved(to) { return .failure(reason) }
        guard let index = index(of: request.booking) else { return .failure(.unknownBooking) }
        guard !isReleased(bookings[index]) else { return .failure(.released) }
        // A move to a released date is forgotten, as a released booking's request id is.
        if let id = request.requestID, let seen = moves[UserRequest(user: request.user, id: id)],
            releasedBefore.map({ seen.to.date >= $0 }) ?? true
        {
            guard seen.booking == request.booking, seen.to == to else { return .failure(.conflictingRequestID) }
            return .success(bookings[index])
        }
        let booking = bookings[index]
        guard booking.user == request.user else { return .failure(.notOwner) }
        if let reason = ModelRules.endedReason(booking.status) { return .failure(reason) }
        guard now.secondsSinceEpoch < rules.rescheduleDeadline(start: booking.start.secondsSinceEpoch) else {
            return .failure(.rescheduleCutoffPassed)
        }
        guard to.station == booking.slot.station else { return .failure(.rescheduleToOtherStation) }
        let t = now.secondsSinceEpoch
        let (reason, start) = availabilityCheck(to, reminder: booking.reminderOffsetSeconds, now: t)
        if let reason { return .failure(reason) }
        if let reason = occupancy(to, except: index, now: t) { return .failure(reason) }
        let others = upcomingBookings(of: booking.user, at: t, except: index) + holdCount(of: booking.user, at: t)
        if !ModelRules.admits(upcoming: others, limit: limit(for: booking.user, at: t)) {
            return .failure(.userLimitReached)
        }
        lapseHold(at: to)
        if activeAt[booking.slot] == index { activeAt[booking.slot] = nil }
        let old = entry(index)
        activeOf[booking.user]?.remove(old)
        bookings[index].slot = to
        bookings[index].start = Instant(secondsSinceEpoch: start)
        bookings[index].checkedInAt = nil  // a check-in was for the old hour
        activeAt[to] = index
        let new = entry(index)
        activeOf[booking.user, default: TimeOrdered()].insert(new)
        if let id = request.requestID {
            moves[UserRequest(user: request.user, id: id)] = RememberedMove(booking: booking.id, to: to)
        }
        return .success(bookings[index])
    }

    // MARK: Any free socket

    /// Any free socket, by linear scan: the station's matching sockets in declaration order, the
    /// first one open and without an active booking or live hold at that hour; then the ordinary
    /// reserve of it.
    package mutating func reserveAny(_ request: AnySocketRequest, at now: Instant) -> ModelResult<Booking> {
        guard let station = station(request.station) else { return .failure(.unknownStation) }
        let connector = request.connector.normalized  // once, not once per socket
        let matching = station.sockets.filter {
            ModelRules.serves($0, connector: connector, minimumPowerKW: request.minimumPowerKW)
        }
        guard !matching.isEmpty else { return .failure(.unknownSocket) }
        guard (0...23).contains(request.hour) else { return .failure(.invalidHour) }
        let slots = matching.map { Slot(station: station.id, socket: $0.id, date: request.date, hour: request.hour) }
        let reminder = request.reminder.map { $0.components.seconds }
        if let seen = remembered(request.requestID, of: request.user) {
            guard slots.contains(seen.slot), seen.reminder == reminder else { return .failure(.conflictingRequestID) }
            return .success(bookings[Int(seen.booking.rawValue) - 1])
        }
        let (reason, _) = timeCheck(slots[0], reminder: reminder, now: now.secondsSinceEpoch)
        if let reason { return .failure(reason) }
        let free = slots.first { slot in
            openHours(station, slot.socket, on: slot.date).contains(slot.hour)
                && occupancy(slot, now: now.secondsSinceEpoch) == nil
        }
        guard let free else { return .failure(.noMatchingSocketFree) }
        return reserve(
            ReservationRequest(
                slot: free, user: request.user, requestID: request.requestID, reminder: request.reminder),
            at: now)
    }

    // MARK: Queries

    /// What a picker would show for `slot` at `now`; `nil` for an unknown slot.
    package func status(of slot: Slot, at now: Instant) -> SlotStatus? {
        guard unresolved(slot) == nil else { return nil }
        switch availabilityCheck(slot, reminder: nil, now: now.secondsSinceEpoch).0 {
        case .nonexistentLocalTime: return .nonexistent
        case .slotInPast: return .past
        case .tooSoon: return .tooSoon
        case .beyondHorizon: return .beyondHorizon
        case .socketClosed: return .closed
        case .outsideOpeningHours: return .outsideHours
        default: break
        }
        switch occupancy(slot, now: now.secondsSinceEpoch) {
        case .slotTaken: return .booked
        case .slotHeld: return .held
        default: return .free
        }
    }

    /// A user's active bookings as the two lists of the library's `UserBookings` the earlier
    /// two-way split had: upcoming (not checked in and not a no-show, soonest first) and past
    /// (ended, most recent first). With a grace shorter than the hour, a booking is a no-show,
    /// and no longer upcoming, before it ends.
    package func bookings(of user: UserID, at now: Instant) -> (upcoming: [Booking], past: [Booking]) {
        let mine = (activeOf[user]?.entries ?? []).map { bookings[$0.index] }.filter { !isReleased($0) }
            .sorted { ($0.start, $0.slot) < ($1.start, $1.slot) }
        let t = now.secondsSinceEpoch
        return (
            mine.filter { $0.checkedInAt == nil && !isNoShow($0, at: t) }, mine.filter { $0.end <= now }.reversed()
        )
    }

    /// The reminders that fall due in `window`: of every active booking held that asked for one,
    /// when it fires (its start minus the offset), by that time then booking id.
    package func remindersDue(in window: Range<Instant>) -> [Reminder] {
        heldBookings.compactMap { booking -> Reminder? in
            guard booking.status == .active, let fireAt = booking.reminderAt, window.contains(fireAt) else {
                return nil
            }
            return Reminder(booking: booking.id, user: booking.user, slot: booking.slot, fireAt: fireAt)
        }
        .sorted { ($0.fireAt, $0.booking) < ($1.fireAt, $1.booking) }
    }

    /// How many bookings are active.
    package var activeCount: Int { activeOf.values.reduce(0) { $0 + $1.count } }
}

// MARK: Check-in and no-shows

/// Check-in and no-shows (I18, I19): a booking is checked in by its owner while active, in its
/// window (``ModelRules/checkInWindow(start:)``); one not checked in is a no-show after it;
/// enough no-shows among the bookings that started in the last `days` days lower the limit.
extension ReferenceModel {
    package func isNoShow(_ booking: Booking, at now: Int64) -> Bool {
        booking.status == .active && booking.checkedInAt == nil
            && rules.isNoShow(start: booking.start.secondsSinceEpoch, at: now)
    }

    /// The user's no-shows at `now` among their active bookings that started in the last
    /// ``Policy/noShowLimit`` days.
    package func noShowCount(of user: UserID, at now: Int64) -> Int {
        (activeOf[user]?.entries ?? []).map { bookings[$0.index] }.filter {
            !isReleased($0) && isNoShow($0, at: now) && rules.countsAsRecent(start: $0.start.secondsSinceEpoch, at: now)
        }.count
    }

    /// The user's limit at `now`: their own, or the ``Policy/noShowLimit`` one while they have had
    /// enough no-shows and it is lower.
    package func limit(for user: UserID, at now: Int64) -> Int {
        let own = limit(for: user)
        guard policy.noShowLimit != nil else { return own }
        return rules.limit(own: own, noShows: noShowCount(of: user, at: now))
    }

    package mutating func checkIn(_ id: BookingID, by user: UserID, accessCode: String? = nil, at now: Instant)
        -> ModelResult<Booking>
    {
        guard let index = index(of: id) else { return .failure(.unknownBooking) }
        let booking = bookings[index]
        guard !isReleased(booking) else { return .failure(.released) }
        guard booking.user == user else { return .failure(.notOwner) }
        if let reason = ModelRules.endedReason(booking.status) { return .failure(reason) }
        let code = station(booking.slot.station)?.sockets.first { $0.id == booking.slot.socket }?.accessCode
        if !ModelRules.opens(code: code, presented: accessCode) { return .failure(.wrongAccessCode) }
        if booking.checkedInAt != nil { return .success(booking) }
        let window = rules.checkInWindow(start: booking.start.secondsSinceEpoch)
        if now.secondsSinceEpoch < window.lowerBound { return .failure(.checkInNotOpen) }
        if now.secondsSinceEpoch >= window.upperBound { return .failure(.checkInClosed) }
        bookings[index].checkedInAt = now
        return .success(bookings[index])
    }

    /// Checks out a checked-in booking (I20): by its owner, while active; it ends fulfilled, its
    /// slot free and no longer counted against its user's limit.
    package mutating func checkOut(_ id: BookingID, by user: UserID, at now: Instant) -> ModelResult<Booking> {
        guard let index = index(of: id) else { return .failure(.unknownBooking) }
        let booking = bookings[index]
        guard !isReleased(booking) else { return .failure(.released) }
        guard booking.user == user else { return .failure(.notOwner) }
        if let reason = ModelRules.endedReason(booking.status) { return .failure(reason) }
        guard booking.checkedInAt != nil else { return .failure(.notCheckedIn) }
        bookings[index].checkedOutAt = now
        end(index, as: .fulfilled)
        return .success(bookings[index])
    }

    /// A user's bookings at `now` in four lists (upcoming soonest first; fulfilled, no-show and
    /// cancelled most recent first; ties by slot, then by the order they were made in), and the
    /// ended active ones (`past`).
    package func split(of user: UserID, at now: Instant) -> (
        upcoming: [Booking], fulfilled: [Booking], noShow: [Booking], cancelled: [Booking], past: [Booking]
    ) {
        let mine = heldBookings.filter { $0.user == user }.sorted {
            ($0.start, $0.slot, $0.id) < ($1.start, $1.slot, $1.id)
        }
        let active = mine.filter { $0.status == .active }
        let t = now.secondsSinceEpoch
        return (
            active.filter { $0.checkedInAt == nil && !isNoShow($0, at: t) },
            mine.filter { $0.checkedInAt != nil && ($0.status == .active || $0.status == .fulfilled) }.reversed(),
            active.filter { isNoShow($0, at: t) }.reversed(),
            mine.filter { $0.status == .cancelled || $0.status == .displaced }.reversed(),
            active.filter { $0.end <= now }.reversed()
        )
    }
}
