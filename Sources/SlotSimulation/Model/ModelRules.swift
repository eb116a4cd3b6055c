import SlotScheduler

/// The rules of the reference model that are functions of the policy alone: each user's limit,
/// the time rules of a booking, a hold's expiry, the check-in window, no-shows and the limit they lower. The model's commands read
/// them, and so do the threads-mode checks (`ThreadsAnalysis`), so each is written once outside
/// the core, here. Independent of the library: nothing here calls the core's statement of a rule
/// (`Booking.isNoShow`, `Policy.limit(for:)`, `Rules.timeCheck`).
package struct ModelRules: Sendable {
    package let policy: Policy
    /// Each user's own limit where the policy names one (the first, if it names a user twice).
    private let limits: [UserID: Int]

    package init(policy: Policy) {
        self.policy = policy
        limits = Dictionary(policy.userLimits.map { ($0.user, $0.limit) }, uniquingKeysWith: { first, _ in first })
    }

    /// The user's own limit: the policy's for them, else ``Policy/maxUpcomingBookings``.
    package func limit(for user: UserID) -> Int { limits[user] ?? policy.maxUpcomingBookings }

    /// Why a slot that starts at `start`, on local day `day`, cannot be booked at `now` by the
    /// time rules, in the library's order (past, notice, horizon); `today` is the day at its
    /// station at `now` (`nil`: unknown, no rolling horizon applies).
    package func timeRefusal(start: Int64, day: Int32, today: Int32?, now: Int64) -> Rejection.Reason? {
        if start < now { return .slotInPast }
        if start < now + policy.minimumNoticeSeconds { return .tooSoon }
        switch policy.horizon {
        case .unlimited: return nil
        case .lastDate(let last): return day > last.dayNumber ? .beyondHorizon : nil
        case .rollingDays(let days):
            guard let today else { return nil }
            return Int(day) > Int(today) + days ? .beyondHorizon : nil
        }
    }

    /// Whether a booking that starts at `start` counts against its user's limit at `now`: until
    /// its hour has ended.
    package static func isUpcoming(start: Int64, at now: Int64) -> Bool {
        let (end, overflow) = start.addingReportingOverflow(Booking.durationSeconds)
        return overflow || end > now
    }

    /// Why a booking in `status` cannot change any more: checked out already, or cancelled or
    /// displaced; `nil` while active.
    package static func endedReason(_ status: Booking.Status) -> Rejection.Reason? {
        switch status {
        case .active: nil
        case .fulfilled: .alreadyCheckedOut
        case .cancelled, .displaced: .alreadyCancelled
        }
    }

    /// Whether a check-in that presents `presented` opens a socket whose code is `expected`: any
    /// does when the socket has none, else exactly its own.
    package static func opens(code expected: String?, presented: String?) -> Bool {
        expected == nil || presented == expected
    }

    /// Whether a user who holds `upcoming` bookings and live holds may take one more, under `limit`.
    package static func admits(upcoming: Int, limit: Int) -> Bool { upcoming < limit }

    /// Whether `socket` serves an any-socket request for a connector whose normalized name is
    /// `connector` and at least `minimumPowerKW`.
    package static func serves(_ socket: Socket, connector: String, minimumPowerKW: Double) -> Bool {
        socket.connector.normalized == connector && socket.powerKW >= minimumPowerKW
    }

    /// Whether a user with `live` holds that count may take one more.
    package func admitsHold(live: Int) -> Bool { live < policy.maxHoldsPerUser }

    /// When a hold made at `now` expires: it holds its slot until then (excluded).
    package func holdExpiry(madeAt now: Int64) -> Int64 { now + policy.holdSeconds }

    /// When a booking that starts at `start` may be checked in: from start − early (included) to
    /// start + grace (excluded).
    package func checkInWindow(start: Int64) -> Range<Int64> {
        (start - policy.earlyCheckInSeconds)..<(start + policy.noShowGraceSeconds)
    }

    /// The first moment a booking that starts at `start` can no longer be cancelled: the
    /// policy's `cancellationCutoffSeconds` before it (a cancel is accepted while `now` is earlier).
    package func cancelDeadline(start: Int64) -> Int64 { start - policy.cancellationCutoffSeconds }

    /// The first moment a booking that starts at `start` can no longer be moved: the policy's
    /// `rescheduleCutoffSeconds` before it, or its cancellation cutoff when it names none.
    package func rescheduleDeadline(start: Int64) -> Int64 {
        start - (policy.rescheduleCutoffSeconds ?? policy.cancellationCutoffSeconds)
    }

    /// Whether an active booking that starts at `start`, not checked in, is a no-show at `now`:
    /// from start + grace on.
    package func isNoShow(start: Int64, at now: Int64) -> Bool { now >= checkInWindow(start: start).upperBound }

    /// Whether a no-show of a booking that starts at `start` counts against its user at `now`:
    /// it started in the last ``Policy/noShowLimit`` days.
    package func countsAsRecent(start: Int64, at now: Int64) -> Bool {
        guard let rule = policy.noShowLimit else { return false }
        return start >= now - Int64(rule.days) * 86_400
    }

    /// The limit of a user whose own limit is `own` and who has `noShows` recent no-shows: the
    /// ``Policy/noShowLimit``'s, when they are enough and it is lower.
    package func limit(own: Int, noShows: Int) -> Int {
        guard let rule = policy.noShowLimit, rule.limit < own, noShows >= rule.noShows else { return own }
        return rule.limit
    }
}
