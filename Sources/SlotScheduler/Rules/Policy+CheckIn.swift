/// The check-in and no-show rules of a ``Policy`` (see <doc:BookingRules>).
extension Policy {
    /// While a user has had at least ``noShows`` no-shows among their bookings that started in the
    /// last ``days`` days (counted back from `now`), their upcoming-bookings limit is ``limit``
    /// (when that is lower than their own).
    public struct NoShowLimit: Hashable, Codable, Sendable {
        /// How many no-shows lower the limit (1...1000).
        public var noShows: Int
        /// How many days back from `now` a booking's start counts (1...366).
        public var days: Int
        /// The lowered limit (0...100000).
        public var limit: Int

        public init(noShows: Int, days: Int, limit: Int) {
            self.noShows = noShows
            self.days = days
            self.limit = limit
        }
    }

    /// A policy with its own check-in window and no-show limit (a separate initializer, so code
    /// built against the others still links).
    public init(
        maxUpcomingBookings: Int = 10, horizon: Horizon = .unlimited, minimumNotice: Duration = .zero,
        cancellationCutoff: Duration = .zero, userLimits: [UserLimit] = [], rescheduleCutoff: Duration? = nil,
        hold: Duration = .seconds(600), maxHoldsPerUser: Int = 1, earlyCheckIn: Duration,
        noShowGrace: Duration = .seconds(3_600), noShowLimit: NoShowLimit? = nil
    ) {
        self.init(
            maxUpcomingBookings: maxUpcomingBookings, horizon: horizon, minimumNotice: minimumNotice,
            cancellationCutoff: cancellationCutoff, userLimits: userLimits, rescheduleCutoff: rescheduleCutoff,
            hold: hold, maxHoldsPerUser: maxHoldsPerUser)
        self.earlyCheckInSeconds = earlyCheckIn.components.seconds
        self.noShowGraceSeconds = noShowGrace.components.seconds
        self.noShowLimit = noShowLimit
    }

    /// Refuses a check-in window or no-show limit out of bounds.
    func validateCheckIn() throws(InvalidValue) {
        guard (0...86_400).contains(earlyCheckInSeconds) else {
            throw InvalidValue(
                field: "policy.earlyCheckInSeconds", value: String(earlyCheckInSeconds),
                expected: "0...86400 seconds (one day)", turkish: "0...86400 saniye (bir gün)")
        }
        guard (0...Booking.durationSeconds).contains(noShowGraceSeconds) else {
            throw InvalidValue(
                field: "policy.noShowGraceSeconds", value: String(noShowGraceSeconds),
                expected: "0...3600 seconds (the booking's hour)", turkish: "0...3600 saniye (randevunun saati)")
        }
        guard let rule = noShowLimit else { return }
        guard (1...1_000).contains(rule.noShows) else {
            throw InvalidValue(
                field: "policy.noShowLimit.noShows", value: String(rule.noShows), expected: "a count 1...1000",
                turkish: "1...1000 arası bir sayı")
        }
        guard (1...366).contains(rule.days) else {
            throw InvalidValue(
                field: "policy.noShowLimit.days", value: String(rule.days), expected: "1...366 days",
                turkish: "1...366 gün")
        }
        guard (0...100_000).contains(rule.limit) else {
            throw InvalidValue(
                field: "policy.noShowLimit.limit", value: String(rule.limit), expected: "a count 0...100000",
                turkish: "0...100000 arası bir sayı")
        }
    }
}
