/// The booking rules that do not depend on bookings: catalog, time and policy.
///
/// Answers "could this slot be booked at this `now`?" as a pure function. The ledger, the
/// concurrent scheduler and the PostgreSQL store all call it, so a rule lives in one place.
public struct Rules: Sendable {
    public let catalog: Catalog
    public let policy: Policy
    let noticeSeconds: Int64
    let lastDay: Int32?
    let rollingDays: Int32?
    let defaultLimit: Int32
    /// Per-user limit overrides (the first entry for a user wins, as in ``Policy/limit(for:)``).
    let userLimits: [UserID: Int32]
    /// Every zone's offset table end to end (zone-major), and each station's start in it:
    /// the hot path reads these flat arrays instead of copying a `ZoneClock`.
    let stationTableBase: [Int]
    let dayOffsets: [Int32]
    let tableFirstDay: Int32
    let tableDayCount: Int
    let hasUserLimits: Bool
    /// ``Policy/noShowLimit`` in the units the decisions use, or `nil`.
    let noShowRule: NoShowRule?
    /// `noShowRule`'s lowered limit, or `Int32.max` without a rule: every reservation compares
    /// its limit with this one word (the optional rule took 15 more instructions per attempt).
    let noShowLimit: Int32

    public init(catalog: Catalog, policy: Policy) throws(InvalidValue) {
        self.catalog = catalog
        self.policy = try policy.validated()
        noticeSeconds = policy.minimumNoticeSeconds
        defaultLimit = Int32(clamping: policy.maxUpcomingBookings)
        userLimits = Dictionary(
            policy.userLimits.map { ($0.user, Int32(clamping: $0.limit)) }, uniquingKeysWith: { first, _ in first })
        tableFirstDay = ZoneClock.tableDays.lowerBound
        tableDayCount = ZoneClock.tableDays.count
        dayOffsets = catalog.zones.flatMap(\.dayOffsets)
        stationTableBase = catalog.zoneOfStation.map { Int($0) * ZoneClock.tableDays.count }
        hasUserLimits = !policy.userLimits.isEmpty
        noShowRule = self.policy.noShowLimit.map {
            NoShowRule(
                noShows: Int32($0.noShows), windowSeconds: Int64($0.days) * 86_400, limit: Int32($0.limit))
        }
        noShowLimit = noShowRule?.limit ?? .max
        switch policy.horizon {
        case .unlimited: (lastDay, rollingDays) = (nil, nil)
        case .lastDate(let date): (lastDay, rollingDays) = (date.dayNumber, nil)
        case .rollingDays(let days): (lastDay, rollingDays) = (nil, Int32(days))
        }
    }

    /// The reminder offsets a reservation accepts, in seconds: 0 up to one (leap) year.
    static let reminderRange: ClosedRange<Int64> = 0...31_622_400

    /// Checks time, notice, horizon and reminder for `ref` at `now`; returns the start instant.
    ///
    /// Order of checks: nonexistent local time, past, too soon, beyond horizon, reminder.
    /// - Complexity: O(1) on days without a DST change inside 2000–2099.
    @inline(__always)
    func checkTime(_ ref: SlotRef, reminder: Int64?, now: Int64) -> (reason: Rejection.Reason?, start: Int64) {
        guard let start = start(ref) else { return (.nonexistentLocalTime, 0) }
        if start < now { return (.slotInPast, start) }
        if start < now &+ noticeSeconds { return (.tooSoon, start) }
        if let lastDay, ref.day > lastDay { return (.beyondHorizon, start) }
        if let rollingDays, ref.day > zone(of: ref.station).localDay(at: now) &+ rollingDays {
            return (.beyondHorizon, start)
        }
        if let reminder {
            if !Self.reminderRange.contains(reminder) { return (.invalidReminder, start) }
            if start - reminder < now { return (.reminderInPast, start) }
        }
        return (nil, start)
    }

    /// The instant `ref` starts, or `nil` for a local time that does not exist.
    ///
    /// - Complexity: O(1) on days without a DST change inside 2000–2099 (one table read).
    @inline(__always)
    func start(_ ref: SlotRef) -> Int64? {
        let index = Int(ref.day &- tableFirstDay)
        if index >= 0, index < tableDayCount,
            let start = ZoneClock.start(
                day: ref.day, hour: Int(ref.hour),
                tableOffset: dayOffsets[stationTableBase[Int(ref.station)] &+ index])
        {
            return start
        }
        return zone(of: ref.station).exactStart(day: ref.day, hour: Int(ref.hour))
    }

    func zone(of station: Int32) -> ZoneClock { catalog.zone(of: station) }

    /// The last bookable date for a station (its catalog index, ``SlotRef/station``) at `now`, if
    /// the horizon sets one; `nil` also for an index the catalog does not have.
    public func lastBookableDate(station: Int32, at now: Instant) -> LocalDate? {
        if let lastDay { return LocalDate(dayNumber: lastDay) }
        guard catalog.layout.indices.contains(Int(station)) else { return nil }
        if let rollingDays {
            return LocalDate(dayNumber: zone(of: station).localDay(at: now.secondsSinceEpoch) + rollingDays)
        }
        return nil
    }

    /// The upcoming-bookings limit for `user`.
    public func limit(for user: UserID) -> Int { Int(userLimit(user)) }

    /// The upcoming-bookings limit for `user`.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func userLimit(_ user: UserID) -> Int32 { userLimits[user] ?? defaultLimit }

    /// Whether a booking starting at `start` can still be cancelled at `now`.
    @inline(__always)
    func canCancel(start: Int64, now: Int64) -> Bool {
        changeReason(
            owner: 0, status: .active, start: start, by: 0, now: now, cutoff: policy.cancellationCutoffSeconds,
            passed: .cancellationCutoffPassed) == nil
    }

    /// Why `user` cannot cancel, at `now`, a booking of `owner` in `status` that starts at `start`
    /// (owner only, active only, before the cutoff), or `nil` when they can. The one cancellation
    /// rule: the in-memory faces and the PostgreSQL store all ask it.
    func cancelReason(owner: UserID, status: Booking.Status, start: Int64, by user: UserID, now: Int64)
        -> Rejection.Reason?
    {
        changeReason(
            owner: owner, status: status, start: start, by: user, now: now,
            cutoff: policy.cancellationCutoffSeconds, passed: .cancellationCutoffPassed)
    }

    /// Why `user` cannot change (cancel or move) a booking of `owner` in `status` starting at
    /// `start`: owner only, active only, and only while `now` is strictly before start − `cutoff`
    /// (else `passed`). The one rule behind ``cancelReason(owner:status:start:by:now:)`` and
    /// `rescheduleReason`.
    func changeReason(
        owner: UserID, status: Booking.Status, start: Int64, by user: UserID, now: Int64, cutoff: Int64,
        passed: Rejection.Reason
    ) -> Rejection.Reason? {
        guard owner == user else { return .notOwner }
        if let reason = Self.endedReason(status) { return reason }
        guard now < start.saturatingSubtracting(cutoff) else { return passed }
        return nil
    }

    /// The full refusal of a cancellation of booking `id` (slot `ref`, starting at `start`) by
    /// `user` for `reason`; for ``Rejection/Reason/cancellationCutoffPassed`` with the deadline, in
    /// the station's zone.
    func cancelRejection(_ reason: Rejection.Reason, ref: SlotRef, start: Int64, id: BookingID, by user: UserID)
        -> Rejection
    {
        var rejection = Rejection(reason, slot: catalog.slot(ref), booking: id, user: user)
        if reason == .cancellationCutoffPassed {
            rejection.instant = Instant(start.saturatingSubtracting(policy.cancellationCutoffSeconds))
            localize(&rejection, station: ref.station)
        }
        return rejection
    }

    /// ``cancelRejection(_:ref:start:id:by:)`` for a stored record.
    func cancelRejection(_ reason: Rejection.Reason, of record: BookingRecord, id: BookingID, by user: UserID)
        -> Rejection
    {
        cancelRejection(reason, ref: record.ref, start: record.start, id: id, by: user)
    }

    /// Gives `rejection` the time zone and UTC offset of `station` at its instant, so its message
    /// states the time as the driver's clock shows it.
    func localize(_ rejection: inout Rejection, station: Int32) {
        guard let instant = rejection.instant else { return }
        let zone = zone(of: station)
        rejection.timeZone = zone.identifier
        rejection.utcOffsetSeconds = Int(zone.offset(at: instant.secondsSinceEpoch))
    }

    /// Builds the full refusal for a reason found on the fast path.
    func rejection(
        _ reason: Rejection.Reason, ref: SlotRef, user: UserID, requestID: RequestID?, reminder: Int64?, start: Int64,
        now: Int64
    ) -> Rejection {
        let slot = catalog.slot(ref)
        var r = Rejection(reason, slot: slot, user: user, requestID: requestID)
        switch reason {
        case .nonexistentLocalTime: r.value = String(ref.hour)
        case .slotInPast: r.instant = Instant(start)
        case .tooSoon: r.instant = Instant(now.saturatingAdding(noticeSeconds))
        case .beyondHorizon: r.date = lastBookableDate(station: ref.station, at: Instant(now))
        case .userLimitReached: r.limit = limit(for: user)
        case .holdLimitReached: r.limit = policy.maxHoldsPerUser
        case .checkInNotOpen: r.instant = Instant(start.saturatingSubtracting(policy.earlyCheckInSeconds))
        case .checkInClosed: r.instant = Instant(start.saturatingAdding(policy.noShowGraceSeconds))
        case .invalidReminder: r.value = reminder.map(String.init)
        case .reminderInPast: r.instant = Instant(start.saturatingSubtracting(reminder ?? 0))
        case .conflictingRequestID: r.value = requestID?.rawValue
        default: break
        }
        localize(&r, station: ref.station)
        return r
    }
}

/// ``Policy/NoShowLimit`` as the decisions read it.
struct NoShowRule: Sendable {
    var noShows: Int32
    var windowSeconds: Int64
    var limit: Int32
}
