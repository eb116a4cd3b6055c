import Foundation
import SlotScheduler
import Synchronization

/// Wall-clock arithmetic for the reference model, by brute force over Foundation's `TimeZone`.
///
/// Deliberately independent of the library's `ZoneClock` tables: a local (date, hour) starts at
/// the earliest instant whose local wall time reads exactly that date and hour; if no instant
/// does, the local time does not exist (the DST gap).
enum WallClock {
    static let london: TimeZone = TimeZone(identifier: "Europe/London") ?? TimeZone.current
    private static let cache = Mutex<[Int64: Int64?]>([:])

    static func offset(at instant: Int64) -> Int64 {
        Int64(london.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
    }

    /// The instant local `hour` of `date` starts in Europe/London, or `nil` if it does not exist.
    static func start(date: LocalDate, hour: Int) -> Int64? {
        let local = Int64(date.dayNumber) * 86_400 + Int64(hour) * 3_600
        if let cached = cache.withLock({ $0[local] }) { return cached }
        var found: Int64?
        var t = local - 15 * 3_600
        while t <= local + 15 * 3_600 {
            if t + offset(at: t) == local {
                found = t
                break
            }
            t += 900
        }
        cache.withLock { $0[local] = found }
        return found
    }

    /// The local date in Europe/London at `instant`.
    static func localDay(at instant: Int64) -> Int32 {
        let local = instant + offset(at: instant)
        return Int32((local >= 0 ? local : local - 86_399) / 86_400)
    }
}

/// The model answers with a bare reason; the library's ``Rejection`` carries details it does not model.
extension Rejection.Reason: Error {}

/// The simplest obviously-correct implementation of the booking rules: arrays and linear scans,
/// the same check order as the library (`Decisions.reserve`, `Rules.checkTime`).
///
/// All stations are in Europe/London (the generators only make those).
struct ReferenceModel: Sendable {
    let stations: [Station]
    let policy: Policy
    /// Every booking ever made; booking `i` has id `i + 1`.
    private(set) var bookings: [Booking] = []
    /// Availability overrides, applied in order: the last one for a socket-date wins.
    private(set) var overrides: [Override] = []
    /// Accepted requests with an id: the first booking made for (user, request id).
    private(set) var requests: [Remembered] = []
    /// Accepted reschedules with an id (their own namespace): the booking and where it moved.
    private(set) var moves: [RememberedMove] = []

    struct RememberedMove: Sendable, Equatable {
        var user: UserID
        var id: RequestID
        var booking: BookingID
        var to: Slot
    }
    /// Dates before this one are released (`Ledger.releaseDays`): their bookings are no longer
    /// held, their request ids are forgotten, and nothing on them can be booked or changed.
    private(set) var releasedBefore: LocalDate?

    /// Every hold ever made, in order.
    private(set) var holds: [ModelHold] = []

    struct ModelHold: Sendable, Equatable {
        var hold: Hold
        var state: State

        enum State: Sendable, Equatable {
            case held
            /// Confirmed into booking `index + 1`.
            case confirmed(Int)
            case released
            /// Expired, then its slot was taken by another booking or hold.
            case lapsed
        }

        /// Whether it counts against its user's limits at `now`: until its expiry, unless
        /// confirmed or released.
        func counts(at now: Int64) -> Bool {
            (state == .held || state == .lapsed) && now < hold.expiresAt.secondsSinceEpoch
        }
    }

    struct Override: Sendable, Equatable {
        var station: StationID
        var socket: SocketID
        var date: LocalDate
        var hours: HourSet
    }

    struct Remembered: Sendable, Equatable {
        var user: UserID
        var id: RequestID
        var slot: Slot
        var reminder: Int64?
        var booking: BookingID
    }

    init(stations: [Station], policy: Policy) {
        self.stations = stations
        self.policy = policy
    }

    func station(_ id: StationID) -> Station? { stations.first { $0.id == id } }

    func limit(for user: UserID) -> Int {
        for entry in policy.userLimits where entry.user == user { return entry.limit }
        return policy.maxUpcomingBookings
    }

    func regularHours(_ station: Station, _ socket: SocketID) -> HourSet {
        for s in station.sockets where s.id == socket { return s.openingHours ?? station.openingHours }
        return .closed
    }

    func openHours(_ station: Station, _ socket: SocketID, on date: LocalDate) -> HourSet {
        var hours = regularHours(station, socket)
        for o in overrides where o.station == station.id && o.socket == socket && o.date == date { hours = o.hours }
        return hours
    }

    func isReleased(_ booking: Booking) -> Bool { releasedBefore.map { booking.slot.date < $0 } ?? false }

    /// The bookings not released: what the library still holds.
    var heldBookings: [Booking] { bookings.filter { !isReleased($0) } }

    /// Releases the dates before `cutoff`, if every zone's (London's) date at `now` is at least it.
    mutating func release(before cutoff: LocalDate, at now: Instant) -> Bool {
        guard cutoff.dayNumber <= WallClock.localDay(at: now.secondsSinceEpoch) else { return false }
        releasedBefore = max(releasedBefore ?? cutoff, cutoff)
        return true
    }

    func activeBooking(at slot: Slot) -> Booking? {
        bookings.first { $0.status == .active && $0.slot == slot }
    }

    /// The time rules, in the library's order. Returns the reason, if any, and the start.
    func timeCheck(_ slot: Slot, reminder: Int64?, now: Int64) -> (Rejection.Reason?, Int64) {
        guard let start = WallClock.start(date: slot.date, hour: slot.hour) else { return (.nonexistentLocalTime, 0) }
        if start < now { return (.slotInPast, start) }
        if start < now + policy.minimumNoticeSeconds { return (.tooSoon, start) }
        switch policy.horizon {
        case .unlimited: break
        case .lastDate(let last): if slot.date > last { return (.beyondHorizon, start) }
        case .rollingDays(let days):
            if Int(slot.date.dayNumber) > Int(WallClock.localDay(at: now)) + days { return (.beyondHorizon, start) }
        }
        if let reminder {
            if reminder < 0 || reminder > 31_622_400 { return (.invalidReminder, start) }
            if start - reminder < now { return (.reminderInPast, start) }
        }
        return (nil, start)
    }

    /// Upcoming bookings plus holds that count (``ModelHold/counts(at:)``).
    func upcomingCount(of user: UserID, at now: Int64) -> Int {
        bookings.filter { $0.user == user && !isReleased($0) && $0.isUpcoming(at: Instant(secondsSinceEpoch: now)) }
            .count + holdCount(of: user, at: now)
    }

    func holdCount(of user: UserID, at now: Int64) -> Int {
        holds.filter { $0.hold.user == user && $0.counts(at: now) }.count
    }

    /// The index of the hold that has `slot` (held, not lapsed), live or expired.
    func currentHold(at slot: Slot) -> Int? {
        holds.firstIndex { $0.state == .held && $0.hold.slot == slot }
    }

    func liveHold(at slot: Slot, now: Int64) -> Int? {
        currentHold(at: slot).flatMap { now < holds[$0].hold.expiresAt.secondsSinceEpoch ? $0 : nil }
    }

    /// The slot is taken by a new booking or hold: an expired hold of it lapses.
    mutating func lapseHold(at slot: Slot) {
        if let h = currentHold(at: slot) { holds[h].state = .lapsed }
    }

    /// The checks of a hold or reserve up to the occupancy, in the library's order.
    func slotCheck(_ slot: Slot, reminder: Int64?, now: Int64) -> (Rejection.Reason?, Int64) {
        guard let station = station(slot.station) else { return (.unknownStation, 0) }
        guard station.sockets.contains(where: { $0.id == slot.socket }) else { return (.unknownSocket, 0) }
        guard (0...23).contains(slot.hour) else { return (.invalidHour, 0) }
        let (reason, start) = timeCheck(slot, reminder: reminder, now: now)
        if let reason { return (reason, start) }
        if let releasedBefore, slot.date < releasedBefore { return (.slotInPast, start) }
        let open = openHours(station, slot.socket, on: slot.date)
        if open.isEmpty { return (.socketClosed, start) }
        if !open.contains(slot.hour) { return (.outsideOpeningHours, start) }
        return (nil, start)
    }

    mutating func hold(_ slot: Slot, for user: UserID, reminder: Int64?, at now: Instant) -> Result<
        Hold, Rejection.Reason
    > {
        let t = now.secondsSinceEpoch
        let (reason, start) = slotCheck(slot, reminder: reminder, now: t)
        if let reason { return .failure(reason) }
        if activeBooking(at: slot) != nil { return .failure(.slotTaken) }
        if liveHold(at: slot, now: t) != nil { return .failure(.slotHeld) }
        if upcomingCount(of: user, at: t) >= limit(for: user) { return .failure(.userLimitReached) }
        if holdCount(of: user, at: t) >= policy.maxHoldsPerUser { return .failure(.holdLimitReached) }
        lapseHold(at: slot)
        let hold = Hold(
            slot: slot, user: user, start: Instant(secondsSinceEpoch: start), createdAt: now,
            expiresAt: Instant(secondsSinceEpoch: t + policy.holdSeconds), reminderOffsetSeconds: reminder)
        holds.append(ModelHold(hold: hold, state: .held))
        return .success(hold)
    }

    /// Why `slot` names nothing in the catalog, if it does not.
    func unresolved(_ slot: Slot) -> Rejection.Reason? {
        guard let station = station(slot.station) else { return .unknownStation }
        guard station.sockets.contains(where: { $0.id == slot.socket }) else { return .unknownSocket }
        return (0...23).contains(slot.hour) ? nil : .invalidHour
    }

    mutating func confirm(_ slot: Slot, by user: UserID, at now: Instant) -> Result<Booking, Rejection.Reason> {
        if let reason = unresolved(slot) { return .failure(reason) }
        guard let h = holds.lastIndex(where: { $0.hold.user == user && $0.hold.slot == slot }) else {
            return .failure(.unknownHold)
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
        if upcomingCount(of: user, at: now.secondsSinceEpoch) - 1 >= limit(for: user) {
            return .failure(.userLimitReached)
        }
        let booking = Booking(
            id: BookingID(UInt64(bookings.count + 1)), slot: slot, user: user,
            start: Instant(secondsSinceEpoch: start), createdAt: now, reminderOffsetSeconds: hold.reminderOffsetSeconds)
        holds[h].state = .confirmed(bookings.count)
        bookings.append(booking)
        return .success(booking)
    }

    mutating func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) -> Result<Hold, Rejection.Reason> {
        if let reason = unresolved(slot) { return .failure(reason) }
        guard let h = holds.lastIndex(where: { $0.hold.user == user && $0.hold.slot == slot }) else {
            return .failure(.unknownHold)
        }
        switch holds[h].state {
        case .released, .confirmed: return .failure(.unknownHold)
        case .lapsed: return .failure(.holdExpired)
        case .held: break
        }
        if now >= holds[h].hold.expiresAt { return .failure(.holdExpired) }
        holds[h].state = .released
        return .success(holds[h].hold)
    }

    /// The holds that live at `now`, by slot.
    func liveHolds(at now: Instant) -> [Hold] {
        holds.filter { $0.state == .held && now < $0.hold.expiresAt }.map(\.hold).sorted { $0.slot < $1.slot }
    }

    mutating func reserve(_ request: ReservationRequest, at now: Instant) -> Result<Booking, Rejection.Reason> {
        let slot = request.slot
        guard let station = station(slot.station) else { return .failure(.unknownStation) }
        guard station.sockets.contains(where: { $0.id == slot.socket }) else { return .failure(.unknownSocket) }
        guard (0...23).contains(slot.hour) else { return .failure(.invalidHour) }
        let reminder = request.reminder.map { $0.components.seconds }
        if let id = request.requestID,
            let seen = requests.first(where: {
                $0.user == request.user && $0.id == id && !isReleased(bookings[Int($0.booking.rawValue) - 1])
            })
        {
            guard seen.slot == slot, seen.reminder == reminder else { return .failure(.conflictingRequestID) }
            return .success(bookings[Int(seen.booking.rawValue) - 1])
        }
        let (reason, start) = timeCheck(slot, reminder: reminder, now: now.secondsSinceEpoch)
        if let reason { return .failure(reason) }
        if let releasedBefore, slot.date < releasedBefore { return .failure(.slotInPast) }
        let open = openHours(station, slot.socket, on: slot.date)
        if open.isEmpty { return .failure(.socketClosed) }
        if !open.contains(slot.hour) { return .failure(.outsideOpeningHours) }
        if activeBooking(at: slot) != nil { return .failure(.slotTaken) }
        if liveHold(at: slot, now: now.secondsSinceEpoch) != nil { return .failure(.slotHeld) }
        if upcomingCount(of: request.user, at: now.secondsSinceEpoch) >= limit(for: request.user) {
            return .failure(.userLimitReached)
        }
        lapseHold(at: slot)
        let booking = Booking(
            id: BookingID(UInt64(bookings.count + 1)), slot: slot, user: request.user,
            start: Instant(secondsSinceEpoch: start), createdAt: now, requestID: request.requestID,
            reminderOffsetSeconds: reminder)
        bookings.append(booking)
        if let id = request.requestID {
            requests.append(
                Remembered(user: request.user, id: id, slot: slot, reminder: reminder, booking: booking.id))
        }
        return .success(booking)
    }

    mutating func cancel(_ id: BookingID, by user: UserID, at now: Instant) -> Result<Booking, Rejection.Reason> {
        guard let index = bookings.firstIndex(where: { $0.id == id }) else { return .failure(.unknownBooking) }
        let booking = bookings[index]
        guard !isReleased(booking) else { return .failure(.released) }
        guard booking.user == user else { return .failure(.notOwner) }
        guard booking.status == .active else { return .failure(.alreadyCancelled) }
        guard now.secondsSinceEpoch < booking.start.secondsSinceEpoch - policy.cancellationCutoffSeconds else {
            return .failure(.cancellationCutoffPassed)
        }
        bookings[index].status = .cancelled
        return .success(bookings[index])
    }

    mutating func changeAvailability(
        _ change: AvailabilityChange, rule: DisplacementRule, at now: Instant
    ) -> Result<[Booking], Rejection.Reason> {
        guard let station = station(change.station) else { return .failure(.unknownStation) }
        var sockets = station.sockets.map(\.id)
        if let socket = change.socket {
            guard sockets.contains(socket) else { return .failure(.unknownSocket) }
            sockets = [socket]
        }
        if let releasedBefore, change.date < releasedBefore { return .failure(.released) }
        var displaced: [Int] = []
        for socket in sockets {
            let hours = change.hours ?? regularHours(station, socket)
            for hour in 0..<24 where !hours.contains(hour) {
                let slot = Slot(station: station.id, socket: socket, date: change.date, hour: hour)
                if let index = bookings.firstIndex(where: { $0.status == .active && $0.slot == slot }) {
                    displaced.append(index)
                }
            }
        }
        if rule == .refuse, !displaced.isEmpty { return .failure(.slotHasBookings) }
        for socket in sockets {
            overrides.append(
                Override(
                    station: station.id, socket: socket, date: change.date,
                    hours: change.hours ?? regularHours(station, socket)))
        }
        for index in displaced { bookings[index].status = .displaced }
        return .success(displaced.map { bookings[$0] })
    }

    /// Moves a booking to another slot of its station, by the rules written out once more: the
    /// request id, owner, active, the change cutoff, same station, time rules with the booking's
    /// reminder, availability, the slot free or the booking's own, and the limit counting the
    /// user's *other* upcoming bookings.
    mutating func reschedule(_ request: RescheduleRequest, at now: Instant) -> Result<Booking, Rejection.Reason> {
        let to = request.slot
        guard let toStation = station(to.station) else { return .failure(.unknownStation) }
        guard toStation.sockets.contains(where: { $0.id == to.socket }) else { return .failure(.unknownSocket) }
        guard (0...23).contains(to.hour) else { return .failure(.invalidHour) }
        guard let index = bookings.firstIndex(where: { $0.id == request.booking }) else {
            return .failure(.unknownBooking)
        }
        guard !isReleased(bookings[index]) else { return .failure(.released) }
        if let id = request.requestID, let seen = moves.first(where: { $0.user == request.user && $0.id == id }) {
            guard seen.booking == request.booking, seen.to == to else { return .failure(.conflictingRequestID) }
            return .success(bookings[index])
        }
        let booking = bookings[index]
        guard booking.user == request.user else { return .failure(.notOwner) }
        guard booking.status == .active else { return .failure(.alreadyCancelled) }
        let cutoff = policy.rescheduleCutoffSeconds ?? policy.cancellationCutoffSeconds
        guard now.secondsSinceEpoch < booking.start.secondsSinceEpoch - cutoff else {
            return .failure(.rescheduleCutoffPassed)
        }
        guard to.station == booking.slot.station else { return .failure(.rescheduleToOtherStation) }
        let (reason, start) = timeCheck(to, reminder: booking.reminderOffsetSeconds, now: now.secondsSinceEpoch)
        if let reason { return .failure(reason) }
        if let releasedBefore, to.date < releasedBefore { return .failure(.slotInPast) }
        let open = openHours(toStation, to.socket, on: to.date)
        if open.isEmpty { return .failure(.socketClosed) }
        if !open.contains(to.hour) { return .failure(.outsideOpeningHours) }
        if let holder = activeBooking(at: to), holder.id != booking.id { return .failure(.slotTaken) }
        if liveHold(at: to, now: now.secondsSinceEpoch) != nil { return .failure(.slotHeld) }
        let others = heldBookings.filter { $0.user == booking.user && $0.id != booking.id && $0.isUpcoming(at: now) }
        if others.count + holdCount(of: booking.user, at: now.secondsSinceEpoch) >= limit(for: booking.user) {
            return .failure(.userLimitReached)
        }
        lapseHold(at: to)
        bookings[index].slot = to
        bookings[index].start = Instant(secondsSinceEpoch: start)
        if let id = request.requestID {
            moves.append(RememberedMove(user: request.user, id: id, booking: booking.id, to: to))
        }
        return .success(bookings[index])
    }

    /// What a picker would show for `slot` at `now`; `nil` for an unknown slot.
    func status(of slot: Slot, at now: Instant) -> SlotStatus? {
        guard let station = station(slot.station), station.sockets.contains(where: { $0.id == slot.socket }),
            (0...23).contains(slot.hour)
        else { return nil }
        switch timeCheck(slot, reminder: nil, now: now.secondsSinceEpoch).0 {
        case .nonexistentLocalTime: return .nonexistent
        case .slotInPast: return .past
        case .tooSoon: return .tooSoon
        case .beyondHorizon: return .beyondHorizon
        default: break
        }
        if let releasedBefore, slot.date < releasedBefore { return .past }
        let open = openHours(station, slot.socket, on: slot.date)
        if open.isEmpty { return .closed }
        if !open.contains(slot.hour) { return .outsideHours }
        if activeBooking(at: slot) != nil { return .booked }
        return liveHold(at: slot, now: now.secondsSinceEpoch) == nil ? .free : .held
    }

    /// A user's active bookings: upcoming soonest first, past most recent first.
    func bookings(of user: UserID, at now: Instant) -> (upcoming: [Booking], past: [Booking]) {
        let mine = heldBookings.filter { $0.user == user && $0.status == .active }
            .sorted { ($0.start, $0.slot) < ($1.start, $1.slot) }
        return (mine.filter { $0.end > now }, mine.filter { $0.end <= now }.reversed())
    }
}
