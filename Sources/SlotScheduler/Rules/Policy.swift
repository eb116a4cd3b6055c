/// The configurable booking rules.
///
/// The source apps used `maxUpcomingBookings` 10 (app 000) and 3 (app 001), and a fixed last
/// bookable date (2022-12-31 in app 000).
public struct Policy: Hashable, Codable, Sendable {
    /// How many upcoming bookings a user may hold. Bookings whose hour has ended do not count.
    public var maxUpcomingBookings: Int
    /// The last date that can be booked.
    public var horizon: Horizon
    /// A slot must start at least this many seconds after `now`.
    public var minimumNoticeSeconds: Int64
    /// A booking can be cancelled only while `now` is more than this many seconds before its start.
    public var cancellationCutoffSeconds: Int64
    /// Limits for particular users, replacing ``maxUpcomingBookings`` for them.
    public var userLimits: [UserLimit]
    /// A booking can be rescheduled only while `now` is more than this many seconds before its
    /// start; `nil` (the default) uses ``cancellationCutoffSeconds``.
    public var rescheduleCutoffSeconds: Int64?
    /// How long a hold lives, in seconds (1...86400; see ``Hold``).
    public var holdSeconds: Int64
    /// How many live holds a user may have at once (0...1000; 0 turns holds off).
    public var maxHoldsPerUser: Int
    /// How long before its start a booking can be checked in, in seconds (0...86400, default 900;
    /// see <doc:BookingRules>).
    public var earlyCheckInSeconds: Int64
    /// How long after its start a booking can still be checked in, in seconds (0...3600, default
    /// 3600: the whole hour); a booking not checked in by then is a no-show.
    public var noShowGraceSeconds: Int64
    /// Lowers the limit of users with recent no-shows; `nil` (the default) lowers nothing.
    public var noShowLimit: NoShowLimit?

    public init(
        maxUpcomingBookings: Int = 10, horizon: Horizon = .unlimited, minimumNotice: Duration = .zero,
        cancellationCutoff: Duration = .zero, userLimits: [UserLimit] = []
    ) {
        self.maxUpcomingBookings = maxUpcomingBookings
        self.horizon = horizon
        self.minimumNoticeSeconds = minimumNotice.components.seconds
        self.cancellationCutoffSeconds = cancellationCutoff.components.seconds
        self.userLimits = userLimits
        self.rescheduleCutoffSeconds = nil
        self.holdSeconds = 600
        self.maxHoldsPerUser = 1
        self.earlyCheckInSeconds = 900
        self.noShowGraceSeconds = 3_600
        self.noShowLimit = nil
    }

    /// A policy with its own change cutoff for reschedules (a separate initializer, so code
    /// built against the one without it still links).
    public init(
        maxUpcomingBookings: Int = 10, horizon: Horizon = .unlimited, minimumNotice: Duration = .zero,
        cancellationCutoff: Duration = .zero, userLimits: [UserLimit] = [], rescheduleCutoff: Duration?
    ) {
        self.init(
            maxUpcomingBookings: maxUpcomingBookings, horizon: horizon, minimumNotice: minimumNotice,
            cancellationCutoff: cancellationCutoff, userLimits: userLimits)
        self.rescheduleCutoffSeconds = rescheduleCutoff.map { $0.components.seconds }
    }

    /// A policy with holds set (see ``Hold``; a separate initializer, as above).
    public init(
        maxUpcomingBookings: Int = 10, horizon: Horizon = .unlimited, minimumNotice: Duration = .zero,
        cancellationCutoff: Duration = .zero, userLimits: [UserLimit] = [], rescheduleCutoff: Duration? = nil,
        hold: Duration, maxHoldsPerUser: Int = 1
    ) {
        self.init(
            maxUpcomingBookings: maxUpcomingBookings, horizon: horizon, minimumNotice: minimumNotice,
            cancellationCutoff: cancellationCutoff, userLimits: userLimits, rescheduleCutoff: rescheduleCutoff)
        self.holdSeconds = hold.components.seconds
        self.maxHoldsPerUser = maxHoldsPerUser
    }

    enum CodingKeys: String, CodingKey {
        case maxUpcomingBookings, horizon, minimumNoticeSeconds, cancellationCutoffSeconds, userLimits
        case rescheduleCutoffSeconds, holdSeconds, maxHoldsPerUser
        case earlyCheckInSeconds, noShowGraceSeconds, noShowLimit
    }

    /// Decodes a policy; the fields added after version 1 may be missing (a policy stored before
    /// them) and then take their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        maxUpcomingBookings = try c.decode(Int.self, forKey: .maxUpcomingBookings)
        horizon = try c.decode(Horizon.self, forKey: .horizon)
        minimumNoticeSeconds = try c.decode(Int64.self, forKey: .minimumNoticeSeconds)
        cancellationCutoffSeconds = try c.decode(Int64.self, forKey: .cancellationCutoffSeconds)
        userLimits = try c.decode([UserLimit].self, forKey: .userLimits)
        rescheduleCutoffSeconds = try c.decodeIfPresent(Int64.self, forKey: .rescheduleCutoffSeconds)
        holdSeconds = try c.decodeIfPresent(Int64.self, forKey: .holdSeconds) ?? 600
        maxHoldsPerUser = try c.decodeIfPresent(Int.self, forKey: .maxHoldsPerUser) ?? 1
        earlyCheckInSeconds = try c.decodeIfPresent(Int64.self, forKey: .earlyCheckInSeconds) ?? 900
        noShowGraceSeconds = try c.decodeIfPresent(Int64.self, forKey: .noShowGraceSeconds) ?? 3_600
        noShowLimit = try c.decodeIfPresent(NoShowLimit.self, forKey: .noShowLimit)
    }

    /// The last date a booking may be made for.
    public enum Horizon: Hashable, Codable, Sendable {
        /// No limit.
        case unlimited
        /// Dates after this one cannot be booked.
        case lastDate(LocalDate)
        /// At most this many days after the station's local date at `now` (0 = today only).
        case rollingDays(Int)
    }

    /// A per-user override of the upcoming-bookings limit.
    public struct UserLimit: Hashable, Codable, Sendable {
        public var user: UserID
        public var limit: Int
        public init(user: UserID, limit: Int) {
            self.user = user
            self.limit = limit
        }
    }

    /// The limit that applies to `user`.
    ///
    /// - Complexity: O(*n*) in the number of overrides; ``Rules`` indexes them by user.
    public func limit(for user: UserID) -> Int {
        userLimits.first { $0.user == user }?.limit ?? maxUpcomingBookings
    }

    /// Refuses limits, notices and horizons that make no sense.
    public func validated() throws(InvalidValue) -> Policy {
        let maxLimit = 100_000
        guard (0...maxLimit).contains(maxUpcomingBookings) else {
            throw InvalidValue(
                field: "policy.maxUpcomingBookings", value: String(maxUpcomingBookings),
                expected: "a count 0...\(maxLimit)", turkish: "0...\(maxLimit) arası bir sayı")
        }
        if case .rollingDays(let days) = horizon, !(0...36_600).contains(days) {
            throw InvalidValue(
                field: "policy.horizon.rollingDays", value: String(days), expected: "0...36600 days",
                turkish: "0...36600 gün")
        }
        guard (0...31_622_400).contains(minimumNoticeSeconds) else {
            throw InvalidValue(
                field: "policy.minimumNoticeSeconds", value: String(minimumNoticeSeconds),
                expected: "0...31622400 seconds (one year)",
                turkish: "0...31622400 saniye (bir yıl)")
        }
        guard (0...31_622_400).contains(cancellationCutoffSeconds) else {
            throw InvalidValue(
                field: "policy.cancellationCutoffSeconds", value: String(cancellationCutoffSeconds),
                expected: "0...31622400 seconds (one year)",
                turkish: "0...31622400 saniye (bir yıl)")
        }
        if let seconds = rescheduleCutoffSeconds, !(0...31_622_400).contains(seconds) {
            throw InvalidValue(
                field: "policy.rescheduleCutoffSeconds", value: String(seconds),
                expected: "0...31622400 seconds (one year)",
                turkish: "0...31622400 saniye (bir yıl)")
        }
        guard (1...86_400).contains(holdSeconds) else {
            throw InvalidValue(
                field: "policy.holdSeconds", value: String(holdSeconds), expected: "1...86400 seconds (one day)",
                turkish: "1...86400 saniye (bir gün)")
        }
        guard (0...1_000).contains(maxHoldsPerUser) else {
            throw InvalidValue(
                field: "policy.maxHoldsPerUser", value: String(maxHoldsPerUser), expected: "a count 0...1000",
                turkish: "0...1000 arası bir sayı")
        }
        try validateCheckIn()
        var seen = Set<UserID>()
        for (index, entry) in userLimits.enumerated() {
            guard (0...maxLimit).contains(entry.limit) else {
                throw InvalidValue(
                    field: "policy.userLimits[\(index)].limit", value: String(entry.limit),
                    expected: "a count 0...\(maxLimit)", turkish: "0...\(maxLimit) arası bir sayı")
            }
            guard seen.insert(entry.user).inserted else {
                throw InvalidValue(
                    field: "policy.userLimits[\(index)].user", value: entry.user.description,
                    expected: "each user at most once",
                    turkish: "her kullanıcı en çok bir kez")
            }
        }
        return self
    }
}
