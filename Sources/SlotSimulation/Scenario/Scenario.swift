import SlotScheduler

/// A simulation scenario, as read from `Scenarios/*.json` (format version 1).
///
/// See `Scenarios/README.md` for what each field means and `Scenarios/scenario.schema.json` for
/// the JSON Schema. Optional fields have the defaults documented there.
public struct Scenario: Codable, Sendable, Equatable {
    /// Format version; must be 1.
    public var version: Int
    public var name: String
    public var description: String?
    /// Where the data comes from and under which licence, when it is not invented.
    public var attribution: String?
    /// The seed of every random choice in the run.
    public var seed: UInt64
    public var stations: [Station]
    /// Per-date availability in force before the run starts.
    public var overrides: [AvailabilityChange]?
    public var policy: ScenarioPolicy
    public var clock: ScenarioClock
    public var users: UserPopulation
    /// The random workload; absent for a purely scripted scenario.
    public var workload: Workload?
    /// Availability changes that happen during the workload, at given operation numbers.
    public var timeline: [TimedChange]?
    /// What chargers report during the workload: a connector faulted, unavailable or available
    /// again at given operation numbers, applied as the OCPP bridge applies them
    /// (`SlotSchedulerOCPP.SocketFault`).
    public var stationEvents: [StationEvent]?
    /// Scripted steps, run in order before the workload, each optionally with an expected outcome.
    public var steps: [Step]?
    public var expectations: Expectations?
    /// What an importer did to produce this scenario (rows read, skipped and why).
    public var provenance: Provenance?

    public init(
        version: Int = 1, name: String, description: String? = nil, attribution: String? = nil, seed: UInt64,
        stations: [Station], overrides: [AvailabilityChange]? = nil, policy: ScenarioPolicy, clock: ScenarioClock,
        users: UserPopulation, workload: Workload? = nil, timeline: [TimedChange]? = nil, steps: [Step]? = nil,
        expectations: Expectations? = nil, provenance: Provenance? = nil, stationEvents: [StationEvent]? = nil
    ) {
        self.version = version
        self.name = name
        self.description = description
        self.attribution = attribution
        self.seed = seed
        self.stations = stations
        self.overrides = overrides
        self.policy = policy
        self.clock = clock
        self.users = users
        self.workload = workload
        self.timeline = timeline
        self.stationEvents = stationEvents
        self.steps = steps
        self.expectations = expectations
        self.provenance = provenance
    }
}

/// The booking rules of a scenario.
public struct ScenarioPolicy: Codable, Sendable, Equatable {
    public var maxUpcomingBookings: Int
    /// A fixed last bookable date (the source app used 2022-12-31).
    public var lastDate: LocalDate?
    /// Or a rolling horizon: at most this many days after the station's local date.
    public var rollingDays: Int?
    public var minimumNoticeSeconds: Int64?
    public var cancellationCutoffSeconds: Int64?
    public var userLimits: [Policy.UserLimit]?
    /// How long a hold lives (default 600 seconds).
    public var holdSeconds: Int64?
    /// Live holds a user may have at once (default 1).
    public var maxHoldsPerUser: Int?
    /// Reschedules allowed only until this long before the start (default: the cancellation cutoff).
    public var rescheduleCutoffSeconds: Int64?
    /// Check-in opens this long before the start (default 900 seconds).
    public var earlyCheckInSeconds: Int64?
    /// A booking not checked in this long after its start is a no-show (default 3600 seconds).
    public var noShowGraceSeconds: Int64?
    /// A lower limit while a user has had enough recent no-shows (default none).
    public var noShowLimit: Policy.NoShowLimit?

    public init(
        maxUpcomingBookings: Int, lastDate: LocalDate? = nil, rollingDays: Int? = nil,
        minimumNoticeSeconds: Int64? = nil, cancellationCutoffSeconds: Int64? = nil,
        userLimits: [Policy.UserLimit]? = nil, holdSeconds: Int64? = nil, maxHoldsPerUser: Int? = nil,
        rescheduleCutoffSeconds: Int64? = nil
    ) {
        self.holdSeconds = holdSeconds
        self.maxHoldsPerUser = maxHoldsPerUser
        self.rescheduleCutoffSeconds = rescheduleCutoffSeconds
        self.maxUpcomingBookings = maxUpcomingBookings
        self.lastDate = lastDate
        self.rollingDays = rollingDays
        self.minimumNoticeSeconds = minimumNoticeSeconds
        self.cancellationCutoffSeconds = cancellationCutoffSeconds
        self.userLimits = userLimits
    }

    /// The core's policy.
    public var policy: Policy {
        var p = Policy(
            maxUpcomingBookings: maxUpcomingBookings,
            horizon: lastDate.map { .lastDate($0) } ?? rollingDays.map { .rollingDays($0) } ?? .unlimited,
            userLimits: userLimits ?? [])
        p.minimumNoticeSeconds = minimumNoticeSeconds ?? 0
        p.cancellationCutoffSeconds = cancellationCutoffSeconds ?? 0
        if let holdSeconds { p.holdSeconds = holdSeconds }
        if let maxHoldsPerUser { p.maxHoldsPerUser = maxHoldsPerUser }
        p.rescheduleCutoffSeconds = rescheduleCutoffSeconds
        if let earlyCheckInSeconds { p.earlyCheckInSeconds = earlyCheckInSeconds }
        if let noShowGraceSeconds { p.noShowGraceSeconds = noShowGraceSeconds }
        p.noShowLimit = noShowLimit
        return p
    }
}

/// Virtual time: where it starts and how it advances.
public struct ScenarioClock: Codable, Sendable, Equatable {
    public var start: Timestamp
    /// Seconds the clock advances after each `operationsPerStep` operations (and after each step).
    public var stepSeconds: Int64
    public var operationsPerStep: Int?

    public init(start: Timestamp, stepSeconds: Int64, operationsPerStep: Int? = nil) {
        self.start = start
        self.stepSeconds = stepSeconds
        self.operationsPerStep = operationsPerStep
    }
}

/// The simulated users: ids `firstID ..< firstID + count`.
public struct UserPopulation: Codable, Sendable, Equatable {
    public var count: Int
    public var firstID: UInt64?
    public init(count: Int, firstID: UInt64? = nil) {
        self.count = count
        self.firstID = firstID
    }
}

/// The random workload.
public struct Workload: Codable, Sendable, Equatable {
    public var operations: Int
    public var mix: Mix
    /// The dates reservations aim at.
    public var dates: DateRange
    /// The local hours reservations aim at (default all 24).
    public var hours: HourSet?
    public var hotness: Hotness?
    /// Default number of worker threads for `--threads` when none is given.
    public var concurrency: Int?
    /// Resources that move: each check-out the workload draws leaves its resource at a place drawn
    /// within this many kilometres of the station's place in the catalog (a relocation); absent,
    /// check-outs leave it where it is.
    public var leftWithinKm: Double?

    public init(
        operations: Int, mix: Mix, dates: DateRange, hours: HourSet? = nil, hotness: Hotness? = nil,
        concurrency: Int? = nil
    ) {
        self.operations = operations
        self.mix = mix
        self.dates = dates
        self.hours = hours
        self.hotness = hotness
        self.concurrency = concurrency
    }

    /// Relative weights of the kinds of operation.
    public struct Mix: Codable, Sendable, Equatable {
        public var reserve: Int
        public var cancel: Int?
        public var query: Int?
        public var availability: Int?
        /// Reservations with a request id, some of them repeated (idempotency, I12).
        public var retry: Int?
        /// Holds of a slot (I15-I17).
        public var hold: Int?
        /// Confirms of a recent hold, mostly by its holder, some after its expiry (I16).
        public var confirm: Int?
        /// Releases of a recent hold, mostly by its holder.
        public var releaseHold: Int?
        /// Moves of a booking to another hour or socket of its station (I14).
        public var reschedule: Int?
        /// Reservations of any free socket of a station with a connector and power (I13).
        public var anySocket: Int?
        /// Check-ins of a recent booking, mostly by its owner, early, in time or late (I18, I19),
        /// with its socket's access code when it has one (1 in 8 a wrong one).
        public var checkIn: Int?
        /// Check-outs of a recently checked-in booking, mostly by its owner; 1 in 4 of a recent
        /// booking, mostly not checked in (I21).
        public var checkOut: Int?

        public init(
            reserve: Int, cancel: Int? = nil, query: Int? = nil, availability: Int? = nil, retry: Int? = nil,
            hold: Int? = nil, confirm: Int? = nil, releaseHold: Int? = nil, reschedule: Int? = nil,
            anySocket: Int? = nil, checkIn: Int? = nil, checkOut: Int? = nil
        ) {
            self.checkIn = checkIn
            self.checkOut = checkOut
            self.reserve = reserve
            self.cancel = cancel
            self.query = query
            self.availability = availability
            self.retry = retry
            self.hold = hold
            self.confirm = confirm
            self.releaseHold = releaseHold
            self.reschedule = reschedule
            self.anySocket = anySocket
        }
    }

    public struct DateRange: Codable, Sendable, Equatable {
        public var from: LocalDate
        public var days: Int
        public init(from: LocalDate, days: Int) {
            self.from = from
            self.days = days
        }
    }

    /// `share` of the reservations go to `slots` popular slots.
    public struct Hotness: Codable, Sendable, Equatable {
        public var slots: Int
        public var share: Double
        public init(slots: Int, share: Double) {
            self.slots = slots
            self.share = share
        }
    }
}

/// A connector's status reported by its charger before operation `atOperation`: `Faulted` or
/// `Unavailable` closes the socket from that moment's hour for `faultHorizonHours` (2 by
/// default), extended hour by hour while it lasts; `Available` reopens the hours not started.
public struct StationEvent: Codable, Sendable, Equatable {
    public var atOperation: Int
    public var station: StationID
    public var socket: SocketID
    public var status: Status
    public var faultHorizonHours: Int?

    public enum Status: String, Codable, Sendable, Equatable, CaseIterable {
        case faulted = "Faulted"
        case unavailable = "Unavailable"
        case available = "Available"

        public init(from decoder: any Decoder) throws { self = try decoder.decodeName() }
    }

    public init(atOperation: Int, station: StationID, socket: SocketID, status: Status, faultHorizonHours: Int? = nil) {
        self.atOperation = atOperation
        self.station = station
        self.socket = socket
        self.status = status
        self.faultHorizonHours = faultHorizonHours
    }
}

/// An availability change made while the workload runs, before operation `atOperation`.
public struct TimedChange: Codable, Sendable, Equatable {
    public var atOperation: Int
    public var station: StationID
    public var socket: SocketID?
    public var date: LocalDate
    /// Hours open on that date; absent or null restores the regular hours; `[]` closes.
    public var hours: HourSet?
    public var onBookings: DisplacementRule?
}

/// A scripted step.
public struct Step: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case reserve, cancel, changeAvailability, query, hold, confirm, releaseHold, reschedule, anySocket, checkIn
        case checkOut

        public init(from decoder: any Decoder) throws { self = try decoder.decodeName() }
    }
    public var op: Kind
    /// When the step happens; default: the clock, which then advances one step.
    public var at: Timestamp?
    public var user: UInt64?
    public var station: StationID?
    public var socket: SocketID?
    public var date: LocalDate?
    public var hour: Int?
    public var requestID: RequestID?
    /// Names the booking a reserve makes, for later cancel steps and `expectDisplaced`.
    public var label: String?
    /// The label of the booking a cancel, reschedule, checkIn or checkOut step acts on.
    public var booking: String?
    public var hours: HourSet?
    public var onBookings: DisplacementRule?
    /// `accepted`, a refusal reason (e.g. `slotTaken`), or for a query a slot status (e.g. `free`).
    public var expect: String?
    /// Labels of the bookings a changeAvailability step must displace (exactly these).
    public var expectDisplaced: [String]?
    public var note: String?
    /// For `anySocket`: the connector the socket must have, and the least power in kW (default 0).
    public var connector: String?
    public var minimumPowerKW: Double?
    /// For `reserve`: a reminder this many seconds before the start.
    public var reminderSeconds: Int64?
    /// For `checkIn`: the code presented (the socket's `accessCode`, or a wrong one).
    public var accessCode: String?
    /// For `checkOut`: where the resource was left; an accepted check-out moves its station there.
    public var leftAt: Coordinate?

    public init(
        op: Kind, at: Timestamp? = nil, user: UInt64? = nil, station: StationID? = nil, socket: SocketID? = nil,
        date: LocalDate? = nil, hour: Int? = nil, requestID: RequestID? = nil, label: String? = nil,
        booking: String? = nil, hours: HourSet? = nil, onBookings: DisplacementRule? = nil, expect: String? = nil,
        expectDisplaced: [String]? = nil, note: String? = nil, connector: String? = nil, minimumPowerKW: Double? = nil,
        reminderSeconds: Int64? = nil
    ) {
        self.reminderSeconds = reminderSeconds
        self.connector = connector
        self.minimumPowerKW = minimumPowerKW
        self.op = op
        self.at = at
        self.user = user
        self.station = station
        self.socket = socket
        self.date = date
        self.hour = hour
        self.requestID = requestID
        self.label = label
        self.booking = booking
        self.hours = hours
        self.onBookings = onBookings
        self.expect = expect
        self.expectDisplaced = expectDisplaced
        self.note = note
    }
}

/// What the run must show besides the invariants.
public struct Expectations: Codable, Sendable, Equatable {
    /// Invariants to check (ids such as `I1`); default all that apply.
    public var invariants: [String]?
    /// Expected counts: `operations`, `accepted`, `refused`, `refused.<reason>`, `cancelled`,
    /// `displaced`, `repeats`, `queries`.
    public var counts: [String: CountRange]?
    public init(invariants: [String]? = nil, counts: [String: CountRange]? = nil) {
        self.invariants = invariants
        self.counts = counts
    }
}

public struct CountRange: Codable, Sendable, Equatable, CustomStringConvertible {
    public var min: Int?
    public var max: Int?
    public var exactly: Int?
    public init(min: Int? = nil, max: Int? = nil, exactly: Int? = nil) {
        self.min = min
        self.max = max
        self.exactly = exactly
    }
    public func contains(_ n: Int) -> Bool {
        if let exactly, n != exactly { return false }
        if let min, n < min { return false }
        if let max, n > max { return false }
        return true
    }
    public var description: String {
        if let exactly { return "exactly \(exactly)" }
        switch (min, max) {
        case (let a?, let b?): return "\(a)...\(b)"
        case (let a?, nil): return "at least \(a)"
        case (nil, let b?): return "at most \(b)"
        case (nil, nil): return "any"
        }
    }
}

/// What an importer read and skipped.
public struct Provenance: Codable, Sendable, Equatable {
    public var source: String
    public var rowsRead: Int
    public var stepsWritten: Int
    public var skipped: [String: Int]
    public var notes: [String]
}

/// An instant written as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
public struct Timestamp: Codable, Sendable, Equatable, Comparable, CustomStringConvertible {
    public var instant: Instant
    public init(_ instant: Instant) { self.instant = instant }

    public init(parsing text: String) throws(InvalidValue) {
        let invalid = InvalidValue(
            field: "timestamp", value: text, expected: "a UTC time like 2018-06-06T08:00:00Z, in the years 1900...2399")
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].hasSuffix("Z") else { throw invalid }
        let date: LocalDate
        do { date = try LocalDate(parsing: String(parts[0])) } catch { throw invalid }
        let clock = parts[1].dropLast().split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let h = Int(clock[0]), let m = Int(clock[1]), (0...23).contains(h), (0...59).contains(m)
        else { throw invalid }
        let s = clock.count == 3 ? Int(clock[2]) ?? -1 : 0
        guard (0...59).contains(s) else { throw invalid }
        instant = Instant.utc(date, hour: h, minute: m, second: s)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.expected))
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
    public var description: String { instant.description }
    public static func < (a: Self, b: Self) -> Bool { a.instant < b.instant }
}
