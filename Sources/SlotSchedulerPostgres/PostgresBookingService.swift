#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle
import SlotScheduler
import Synchronization

/// The booking rules on a shared PostgreSQL database: several instances (processes, hosts) may
/// book concurrently against one database without double-booking or exceeding a user's limit.
///
/// The database enforces the guarantees: a partial unique index on active slots, a count of the
/// user's upcoming bookings in the reservation's transaction under a per-user advisory lock, a
/// unique `(user, request id)`, and advisory locks that order reservations against availability
/// changes of the same socket-day. The pure
/// rules (catalog, DST, notice, horizon, reminders, cancellation cutoff) are the core's own
/// `Rules`. Refusals are the same `Rejection` values the in-memory `Scheduler` throws.
///
/// The client pool runs in a task this object owns; call ``shutdown()`` when done, or run the
/// store in a ServiceLifecycle `ServiceGroup`, whose graceful shutdown does it.
public final class PostgresBookingService: BookingService, Service {
    public let configuration: PostgresConfiguration
    let pool: WritablePool
    var client: PostgresClient { pool.client }
    private let state: Mutex<RulesState>
    /// The catalog's indices as the database stores them, for the catalog in force.
    var layout: CatalogLayout { state.withLock { $0.layout } }
    let logger: Logger
    /// The calls in flight, which a shutdown lets finish.
    let admission = Admission()
    /// Whether the schema keeps the policy's check-in columns as the store writes them
    /// (migration 12): ``updatePolicy(_:)`` writes them with the policy.
    let writesPolicyColumns: Bool
    /// Whether the schema has `slot_reserve_committed` (migration 15): ``book(_:at:)-(ReservationRequest,_)``
    /// is then one round trip (see ``committedCall(_:)``).
    let reservesInOneCall: Bool

    struct RulesState {
        var rules: Rules
        var version: Int32
        var layout: CatalogLayout
    }

    /// The rules in force; the policy is the database's (see ``updatePolicy(_:)``).
    public var rules: Rules { state.withLock { $0.rules } }
    /// The version of the database's policy this instance last saw.
    public var policyVersion: Int32 { state.withLock { $0.version } }
    /// The rules in force and their policy version, read together.
    var rulesAndVersion: (rules: Rules, version: Int32) { state.withLock { ($0.rules, $0.version) } }
    /// The rules in force, their policy version and the catalog's layout, read together: the
    /// access codes a check-in compares are those of the catalog of that version.
    var inForce: (rules: Rules, version: Int32, layout: CatalogLayout) {
        state.withLock { ($0.rules, $0.version, $0.layout) }
    }

    /// Connects, applies pending migrations and registers the catalog.
    ///
    /// The first instance to start on an empty schema stores `stations` and `policy`. Later
    /// instances given other stations run with the database's and say so at `warning` (or fail
    /// with ``PostgresStoreError/Kind/catalogMismatch`` when ``PostgresConfiguration/catalogConflict``
    /// is `.refuse`), and must pass the policy the database enforces (else ``PostgresStoreError/Kind/policyMismatch``,
    /// unless ``PostgresConfiguration/policyConflict`` is `.adoptStored`); ``updatePolicy(_:)``
    /// changes it for every instance.
    ///
    /// Before anything else one connection is opened outside the pool, so a wrong password,
    /// database, port or host fails within ``PostgresConfiguration/connectTimeout`` with the
    /// cause as the error's kind.
    ///
    /// `logger` is the application's: the store logs its start at `info`, and at `warning` every
    /// repeated call, every call whose outcome is unknown and every move to another host, with the
    /// operation (and host) as metadata; PostgresNIO logs through it too. Without one, the store
    /// logs only what is `critical`. See <doc:Operating>.
    ///
    /// `metricsFactory` counts repeated calls, calls given up and moves to another host
    /// (`StoreCounters`); by default, the factory the application bootstrapped.
    public convenience init(
        configuration: PostgresConfiguration, stations: [Station], policy: Policy, logger: Logger? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) async throws {
        try await self.init(
            configuration: configuration, stations: stations, policy: policy, migrations: Schema.migrations,
            logger: logger, metricsFactory: metricsFactory)
    }

    /// A store over the application's own `PostgresClient` (PostgresNIO's pool, which the
    /// application runs as a `Service` of its `ServiceGroup` and stops): one pool per process
    /// instead of a second one for the store. `configuration` gives the schema, the deploy step's
    /// settings, the attempts and their deadline; the client's own configuration decides the host,
    /// TLS and session settings, and the store does not follow a failover to a standby (give it a
    /// ``PostgresConfiguration`` with several hosts and no client for that). Shutting the store
    /// down drains its calls and leaves the client running.
    public convenience init(
        client: PostgresClient, configuration: PostgresConfiguration, stations: [Station], policy: Policy,
        logger: Logger? = nil, metricsFactory: (any MetricsFactory)? = nil
    ) async throws {
        try await self.init(
            configuration: configuration, stations: stations, policy: policy, migrations: Schema.migrations,
            logger: logger, metricsFactory: metricsFactory, client: client)
    }

    /// Connects (or borrows `client`) and applies the pending ones of `migrations` (the upgrade
    /// tests stop at an earlier version), then registers the catalog.
    init(
        configuration: PostgresConfiguration, stations: [Station], policy: Policy, migrations: [Schema.Migration],
        logger: Logger? = nil, metricsFactory: (any MetricsFactory)? = nil, client: PostgresClient? = nil
    ) async throws {
        let catalog = try Catalog(stations)
        _ = try Rules(catalog: catalog, policy: policy)
        let logger = logger ?? Self.quietLogger
        let counters = StoreCounters(factory: metricsFactory ?? MetricsSystem.factory)
        let pool =
            if let client {
                WritablePool(borrowing: client, configuration, logger: logger, counters: counters)
            } else {
                try await WritablePool(configuration, logger: logger, counters: counters)
            }
        let inForce: Catalog
        do {
            let (storedPolicy, version, stored) = try await Self.prepare(
                pool: pool, configuration: configuration, catalog: catalog, policy: policy,
                migrations: migrations, logger: logger)
            inForce = stored ?? catalog
            if inForce.stations != stations {
                Self.logAdopted(stored: inForce.stations, mine: stations, logger: logger)
            }
            let rules = try Rules(catalog: inForce, policy: storedPolicy)
            self.state = Mutex(RulesState(rules: rules, version: version, layout: CatalogLayout(inForce)))
            logger.info(
                "PostgreSQL store ready",
                metadata: [
                    "schema": "\(configuration.schema)", "schema.version": "\(migrations.last?.version ?? 0)",
                    "policy.version": "\(version)", "stations": "\(inForce.stations.count)",
                    "host": "\(pool.host)",
                ])
        } catch {
            await pool.shutdown()
            throw error
        }
        self.configuration = configuration
        self.pool = pool
        self.logger = logger
        writesPolicyColumns = Self.writesPolicyColumns(migrations)
        reservesInOneCall = Self.reservesInOneCall(migrations)
    }

    /// Says, at `warning`, that this instance runs with the database's catalog, not its own, and
    /// which stations differ.
    static func logAdopted(stored: [Station], mine: [Station], logger: Logger) {
        let theirs = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let ours = Dictionary(mine.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let differing = (stored.map(\.id) + mine.map(\.id).filter { theirs[$0] == nil })
            .filter { theirs[$0] != ours[$0] }.map(\.rawValue)
        logger.warning(
            "PostgreSQL store runs with the database's catalog, not the stations it was given",
            metadata: ["stations differing": "\(differing.joined(separator: ", "))"])
    }

    /// The logger of a store given none: only what is `critical`.
    static var quietLogger: Logger {
        var logger = Logger(label: "SlotSchedulerPostgres")
        logger.logLevel = .critical
        return logger
    }

    /// Connects to the database named by `SLOTSCHEDULER_DATABASE_URL`.
    public convenience init(stations: [Station], policy: Policy, schema: String? = nil) async throws {
        try await self.init(
            configuration: try PostgresConfiguration.fromEnvironment(schema: schema), stations: stations,
            policy: policy)
    }

    deinit { pool.cancel() }

    /// Lets the calls in flight finish, refuses new ones (``PostgresStoreError/Kind/shuttingDown``),
    /// then closes the connection pool.
    public func shutdown() async {
        await admission.close()
        await pool.shutdown()
    }

    /// As a `Service` of a `ServiceGroup`: waits for the group's graceful shutdown (or its
    /// cancellation), then shuts down as ``shutdown()`` does, letting the calls in flight finish.
    public func run() async throws {
        try? await gracefulShutdown()
        logger.info("PostgreSQL store shutting down", metadata: ["calls in flight": "\(admission.inFlight)"])
        await shutdown()
    }

    // MARK: - Commands

    /// Books a slot in one transaction, as ``book(_:at:)-(ReservationRequest,_)``.
    public func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        try await book(request, at: now).booking
    }

    /// Books a slot in one transaction; says whether it repeated an earlier request id. A retry
    /// after a reply lost in flight (with a request id) finds the booking the first attempt
    /// committed, and so reports a replay.
    public func book(_ request: ReservationRequest, at now: Instant) async throws -> Reservation {
        // The core's checks of the slot and the request id (IdentifierRule), before any SQL.
        let ref = try rules.resolve(request)
        let reminder = request.reminder.map { $0.components.seconds }
        let socket = Int(ref.socket)
        guard layout.regular.indices.contains(socket) else {
            throw PostgresStoreError(.unexpectedRow, operation: "reserve", message: "socket index \(socket)")
        }
        while true {
            let (rules, version) = state.withLock { ($0.rules, $0.version) }
            let (timeReason, start) = rules.timeCheck(ref, reminderSeconds: reminder, at: now)
            let limit = Int32(clamping: rules.limit(for: request.user))
            // slot_reserve's arguments, either in slot_reserve_committed (migration 15: a procedure
            // that commits before it answers; its OUT values are slot_reserve's columns, in the
            // same order, given as NULLs in the CALL) or in a SELECT of slot_reserve.
            let (head, tail) =
                reservesInOneCall
                ? ("CALL slot_reserve_committed(", ", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
                : (
                    "SELECT reason, booking_id, start_at, created_at, reminder, status, is_repeat, applied_limit "
                        + "FROM slot_reserve(", ")"
                )
            let query: PostgresQuery = """
                \(unescaped: head)\(version), \(ref.station), \(ref.socket), \(ref.day), \(ref.hour),
                    \(Int64(bitPattern: request.user.rawValue)), \(request.requestID?.rawValue), \(reminder),
                    \(now.secondsSinceEpoch), \(start.secondsSinceEpoch), \(timeReason?.rawValue),
                    \(Int32(bitPattern: layout.regular[socket])), \(limit)\(unescaped: tail)
                """
            // "Accepted" waits for the commit: the procedure's own COMMIT (`committedCall`, one
            // round trip), or, on a schema before migration 15, an explicit transaction (see
            // `transaction`, three). Idempotent only with a request id: without one, a reply lost
            // once the commit may have started leaves the outcome unknown.
            let row = try await retrying("reserve", idempotent: request.requestID != nil) {
                if self.reservesInOneCall { return try await self.committedCall(query).first }
                return try await self.transaction { connection in
                    try await connection.allRows(query, logger: self.logger).first
                }
            }
            guard let row else {
                throw PostgresStoreError(.unexpectedRow, operation: "reserve", message: "slot_reserve returned no row")
            }
            let (reason, id, storedStart, createdAt, storedReminder, status, isRepeat, applied) =
                try CatalogLayout.decoding("reserve") {
                    try row.decode((String?, Int64?, Int64?, Int64?, Int64?, String?, Bool?, Int32?).self)
                }
            if reason == "stalePolicy" {
                if try await reloadRules() { return try await book(request, at: now) }
                continue
            }
            if let reason {
                guard let known = Rejection.Reason(rawValue: reason) else {
                    throw PostgresStoreError(.unexpectedRow, operation: "reserve", message: "unknown reason \(reason)")
                }
                throw Self.applying(
                    applied,
                    to: rules.rejection(
                        known, ref: ref, user: request.user, requestID: request.requestID, reminderSeconds: reminder,
                        start: start, at: now))
            }
            guard let id, let storedStart, let createdAt, let status, let parsed = Booking.Status(rawValue: status)
            else {
                throw PostgresStoreError(.unexpectedRow, operation: "reserve", message: "incomplete booking row")
            }
            if isRepeat == true { return try await repeated(BookingID(UInt64(bitPattern: id)), operation: "reserve") }
            let booking = Booking(
                id: BookingID(UInt64(bitPattern: id)), slot: request.slot, user: request.user,
                start: Instant(secondsSinceEpoch: storedStart), createdAt: Instant(secondsSinceEpoch: createdAt),
                requestID: request.requestID, reminderOffsetSeconds: storedReminder, status: parsed)
            return Reservation(booking: booking, isReplay: isRepeat == true)
        }
    }

    public func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        let rules = rules
        let result: Result<Booking, Rejection> = try await retrying("cancel", idempotent: false) {
            try await self.transaction { connection in
                let rows = try await connection.allRows(
                    "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(Int64(bitPattern: id.rawValue)) FOR UPDATE",
                    logger: self.logger
                )
                guard let row = rows.first else { return .failure(Rejection(.unknownBooking, booking: id, user: user)) }
                var booking = try self.layout.booking(row, operation: "cancel")
                if let refusal = rules.cancelRefusal(of: booking, by: user, at: now) { return .failure(refusal) }
                let raw = Int64(bitPattern: id.rawValue)
                try await connection.allRows(
                    "UPDATE bookings SET status = 'cancelled' WHERE id = \(raw)", logger: self.logger)
                booking.status = .cancelled
                return .success(booking)
            }
        }
        return try result.get()
    }

    public func changeAvailability(
        _ change: AvailabilityChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) async throws -> [Booking] {
        let targets = try layout.targets(of: change, catalog: rules.catalog)
        let masks = targets.map { Int32(bitPattern: change.hours?.mask ?? layout.regular[Int($0)]) }
        let day = change.date.dayNumber
        let result: Result<[Booking], Rejection> = try await retrying("changeAvailability", idempotent: false) {
            try await self.transaction { connection in
                // Exclusive with reservations of these socket-days (they take the lock shared).
                try await connection.allRows(
                    "SELECT pg_advisory_xact_lock(s, \(day)) FROM unnest(\(targets)::integer[]) AS s ORDER BY s",
                    logger: self.logger)
                let rows = try await connection.allRows(
                    """
                    SELECT \(unescaped: CatalogLayout.columns) FROM bookings
                    WHERE socket_idx = ANY(\(targets)::integer[]) AND day = \(day) AND status = 'active'
                    ORDER BY socket_idx, hour FOR UPDATE
                    """, logger: self.logger
                )
                var displaced: [Booking] = []
                for row in rows {
                    let booking = try self.layout.booking(row, operation: "changeAvailability")
                    guard let ref = try? self.layout.ref(of: booking.slot, catalog: self.rules.catalog),
                        let index = targets.firstIndex(of: ref.socket)
                    else { continue }
                    if UInt32(bitPattern: masks[index]) & (1 << UInt32(booking.slot.hour)) == 0 {
                        displaced.append(booking)
                    }
                }
                if rule == .refuse, !displaced.isEmpty {
                    return .failure(Rejection(.slotHasBookings, value: change.description, limit: displaced.count))
                }
                if change.hours == nil {
                    try await connection.allRows(
                        "DELETE FROM availability WHERE socket_idx = ANY(\(targets)::integer[]) AND day = \(day)",
                        logger: self.logger)
                } else {
                    try await connection.allRows(
                        """
                        INSERT INTO availability (socket_idx, day, mask)
                        SELECT s, \(day), m FROM unnest(\(targets)::integer[], \(masks)::integer[]) AS t(s, m)
                        ON CONFLICT (socket_idx, day) DO UPDATE SET mask = excluded.mask
                        """, logger: self.logger)
                }
                let ids = displaced.map { Int64(bitPattern: $0.id.rawValue) }
                if !ids.isEmpty {
                    try await connection.allRows(
                        "UPDATE bookings SET status = 'displaced' WHERE id = ANY(\(ids)::bigint[])", logger: self.logger
                    )
                }
                let mask = change.hours.map { Int32(bitPattern: $0.mask) }
                try await connection.allRows(
                    """
                    INSERT INTO availability_changes (station, socket, day, mask, at, displaced)
                    VALUES (\(change.station.rawValue), \(change.socket?.rawValue), \(day), \(mask),
                            \(now.secondsSinceEpoch), \(Int32(displaced.count)))
                    """, logger: self.logger)
                for index in displaced.indices { displaced[index].status = .displaced }
                return .success(displaced)
            }
        }
        return try result.get()
    }

    /// Replaces the policy every instance enforces. Instances notice on their next reservation.
    public func updatePolicy(_ policy: Policy) async throws {
        let catalog = rules.catalog
        let rules = try Rules(catalog: catalog, policy: policy)
        let json = try Self.json(policy)
        let version: Int32? = try await retrying("updatePolicy", idempotent: true) {
            let rows = try await self.transaction { connection in
                let rows = try await connection.allRows(
                    """
                    UPDATE deployment SET policy_json = \(json), policy_version = policy_version + 1
                    RETURNING policy_version
                    """, logger: self.logger
                )
                if self.writesPolicyColumns {
                    try await Self.writePolicyColumns(policy, on: connection, logger: self.logger)
                }
                return rows
            }
            return try rows.first.map { row in
                try CatalogLayout.decoding("updatePolicy") { try row.decode(Int32.self) }
            }
        }
        guard let version else {
            throw PostgresStoreError(.unexpectedRow, operation: "updatePolicy", message: "no deployment row")
        }
        state.withLock { $0 = RulesState(rules: rules, version: version, layout: $0.layout) }
    }

    /// Reads the policy and the catalog (``changeCatalog(_:onBookings:at:)``) from the database again.
    public func reloadPolicy() async throws { try await reloadRules() }

    /// ``reloadPolicy()``, saying whether the catalog changed: a command resolved under the old
    /// one starts again.
    @discardableResult
    func reloadRules() async throws -> Bool {
        let stored = try await retrying("reloadPolicy", idempotent: true) {
            try await Self.readStored(client: self.pool.client, logger: self.logger)
        }
        let current = rules.catalog
        let catalog = try stored.catalog(replacing: current)
        let rules = try Rules(catalog: catalog, policy: stored.policy)
        let changed = catalog.revision != current.revision
        state.withLock {
            $0 = RulesState(rules: rules, version: stored.version, layout: changed ? CatalogLayout(catalog) : $0.layout)
        }
        if changed {
            logger.info(
                "PostgreSQL store runs with a changed catalog", metadata: ["catalog.revision": "\(catalog.revision)"])
        }
        return changed
    }

    /// Puts the catalog a change made in force (``changeCatalog(_:onBookings:at:)``).
    func adopt(_ rules: Rules, version: Int32) {
        state.withLock { $0 = RulesState(rules: rules, version: version, layout: CatalogLayout(rules.catalog)) }
    }

    // MARK: - Queries

    public func bookings(of user: UserID, at now: Instant) async throws -> UserBookings {
        let raw = Int64(bitPattern: user.rawValue)
        let bookings = try await selectBookings(
            "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE user_id = \(raw)", operation: "bookings")
        return UserBookings(bookings: bookings, at: now, policy: rules.policy)
    }

    /// One page of one of the user's lists, read as a page: the rows of the list from the user's
    /// indices on (user_id, start_at) (`bookings_user_active` for the active bookings,
    /// `bookings_user_fulfilled` for those checked out and `bookings_user_cancelled` for the
    /// cancelled and displaced ones, migration 14), in the list's order, `page.limit + 1` of them
    /// (the last tells `BookingPage.hasMore`) after `page.offset`. The fulfilled list is the
    /// checked-in active bookings and the checked-out ones, as `UserBookings` splits them: the
    /// first `page.offset + page.limit + 1` of each part, each read in order from its index, merged.
    ///
    /// - Complexity: reads `page.offset + page.limit + 1` rows of the list (for the fulfilled list,
    ///   at most that many of each of its two parts), whatever the user's history.
    public func bookings(of user: UserID, in list: BookingList, at now: Instant, page: PageRequest) async throws
        -> BookingPage
    {
        let raw = Int64(bitPattern: user.rawValue)
        // A booking not checked in is a no-show once its start is at or before this.
        let (difference, overflow) = now.secondsSinceEpoch.subtractingReportingOverflow(rules.policy.noShowGraceSeconds)
        let cutoff = overflow ? Int64.min : difference
        let (limit, offset) = (Int64(page.limit) + 1, Int64(page.offset))
        let rank = layout.slotRank
        // Fixed SQL and integers this function computed: nothing from the caller is spliced in.
        // Each filter states its index's predicate as the index does. A list read from one index:
        func one(_ filter: String, _ order: String) -> PostgresQuery {
            """
            SELECT \(unescaped: CatalogLayout.columns) FROM bookings
            WHERE user_id = \(raw) AND \(unescaped: filter)
            ORDER BY start_at \(unescaped: order), (\(rank)::integer[])[socket_idx + 1] \(unescaped: order),
                id \(unescaped: order)
            LIMIT \(limit) OFFSET \(offset)
            """
        }
        let query: PostgresQuery
        switch list {
        case .fulfilled:
            let (sum, overflow) = offset.addingReportingOverflow(limit)
            let head = overflow ? Int64.max : sum
            query = """
                SELECT \(unescaped: CatalogLayout.columns) FROM (
                    (SELECT * FROM bookings WHERE user_id = \(raw) AND status = 'active' AND checked_in_at IS NOT NULL
                     ORDER BY start_at DESC, (\(rank)::integer[])[socket_idx + 1] DESC, id DESC LIMIT \(head))
                    UNION ALL
                    (SELECT * FROM bookings WHERE user_id = \(raw) AND status = 'fulfilled'
                     ORDER BY start_at DESC, (\(rank)::integer[])[socket_idx + 1] DESC, id DESC LIMIT \(head))
                ) AS b
                ORDER BY start_at DESC, (\(rank)::integer[])[socket_idx + 1] DESC, id DESC
                LIMIT \(limit) OFFSET \(offset)
                """
        case .upcoming: query = one("status = 'active' AND checked_in_at IS NULL AND start_at > \(cutoff)", "ASC")
        case .noShow: query = one("status = 'active' AND checked_in_at IS NULL AND start_at <= \(cutoff)", "DESC")
        case .cancelled: query = one("status IN ('cancelled', 'displaced')", "DESC")
        }
        let rows = try await selectBookings(query, operation: "bookings page")
        return BookingPage(bookings: Array(rows.prefix(page.limit)), hasMore: rows.count > page.limit)
    }

    public func dayView(of station: StationID, on date: LocalDate, at now: Instant) async throws -> DayView {
        let rules = rules
        guard let info = rules.catalog.station(station), let first = layout.stationIndex[station] else {
            throw Rejection(.unknownStation, value: station.rawValue)
        }
        let layout = layout
        let flats = layout.socketsInService(of: first)
        let day = date.dayNumber
        let (masks, taken, held) = try await retrying("dayView", idempotent: true) {
            var masks: [Int32: UInt32] = [:]
            let maskRows = try await self.rows(
                """
                SELECT socket_idx, mask FROM availability
                WHERE socket_idx = ANY(\(flats)::integer[]) AND day = \(day)
                """)
            for row in maskRows {
                let (socket, mask) = try CatalogLayout.decoding("dayView") { try row.decode((Int32, Int32).self) }
                masks[socket] = UInt32(bitPattern: mask)
            }
            var taken = Set<Int32>()
            let takenRows = try await self.rows(
                """
                SELECT socket_idx, hour FROM bookings
                WHERE day = \(day) AND socket_idx = ANY(\(flats)::integer[]) AND status = 'active'
                """)
            for row in takenRows {
                let (socket, hour) = try CatalogLayout.decoding("dayView") { try row.decode((Int32, Int32).self) }
                taken.insert(socket * 24 + hour)
            }
            var held = Set<Int32>()
            let heldRows = try await self.rows(
                """
                SELECT socket_idx, hour FROM holds
                WHERE day = \(day) AND socket_idx = ANY(\(flats)::integer[]) AND state = 'held'
                    AND expires_at > \(now.secondsSinceEpoch)
                """)
            for row in heldRows {
                let (socket, hour) = try CatalogLayout.decoding("dayView") { try row.decode((Int32, Int32).self) }
                held.insert(socket * 24 + hour)
            }
            return (masks, taken, held)
        }
        var sockets: [DayView.SocketDay] = []
        for (index, socket) in info.sockets.enumerated() {
            let flat = flats[index]
            let open = masks[flat] ?? layout.regular[Int(flat)]
            var hours: [SlotStatus] = []
            for hour in 0..<24 {
                let ref = try rules.catalog.resolve(Slot(station: station, socket: socket.id, date: date, hour: hour))
                hours.append(
                    Self.status(
                        time: rules.timeCheck(ref, reminderSeconds: nil, at: now).reason, open: open, hour: hour,
                        taken: taken.contains(flat * 24 + Int32(hour)), held: held.contains(flat * 24 + Int32(hour))))
            }
            sockets.append(DayView.SocketDay.assembled(socket: socket, hours: hours))
        }
        return DayView.assembled(station: station, date: date, sockets: sockets)
    }

    /// The active bookings of `station` starting in `window`, by start, then socket: one range
    /// scan of the active-slot index over the window's days (a day either side for time zones).
    public func bookings(at station: StationID, startingIn window: Range<Instant>) async throws -> [Booking] {
        guard !window.isEmpty, let first = layout.stationIndex[station], rules.catalog.station(station) != nil,
            let firstDay = rules.catalog.localDate(of: station, at: window.lowerBound)?.dayNumber,
            let lastDay = rules.catalog.localDate(of: station, at: window.upperBound)?.dayNumber
        else { return [] }
        let flats = layout.socketsInService(of: first)
        let (from, to) = (Int64(firstDay) - 1, Int64(lastDay) + 1)
        let (lower, upper) = (window.lowerBound.secondsSinceEpoch, window.upperBound.secondsSinceEpoch)
        return try await selectBookings(
            """
            SELECT \(unescaped: CatalogLayout.columns) FROM bookings
            WHERE status = 'active' AND day BETWEEN \(from) AND \(to)
                AND socket_idx = ANY(\(flats)::integer[])
                AND start_at >= \(lower) AND start_at < \(upper)
            """, operation: "stationBookings"
        ).sorted { ($0.start, $0.slot) < ($1.start, $1.slot) }
    }

    /// Reminders due in `window`, by time then booking id: the active bookings whose start less
    /// their reminder offset lies in the window, found through the index of migration 8.
    public func remindersDue(in window: Range<Instant>) async throws -> [Reminder] {
        guard !window.isEmpty else { return [] }
        let (lower, upper) = (window.lowerBound.secondsSinceEpoch, window.upperBound.secondsSinceEpoch)
        return try await selectBookings(
            """
            SELECT \(unescaped: CatalogLayout.columns) FROM bookings
            WHERE status = 'active' AND reminder IS NOT NULL
                AND start_at - reminder >= \(lower) AND start_at - reminder < \(upper)
            """, operation: "remindersDue"
        ).compactMap { booking -> Reminder? in
            guard let offset = booking.reminderOffsetSeconds else { return nil }
            let (fireAt, overflow) = booking.start.secondsSinceEpoch.subtractingReportingOverflow(offset)
            guard !overflow else { return nil }
            return Reminder(
                booking: booking.id, user: booking.user, slot: booking.slot, fireAt: Instant(secondsSinceEpoch: fireAt))
        }.sorted { ($0.fireAt, $0.booking) < ($1.fireAt, $1.booking) }
    }

    /// For each station matching `filter`, its earliest free slot at `now`, searched over the
    /// store's day views (`BookingService.earliestFreeSlotsFromDayViews(matching:at:)`): at most
    /// `filter.searchDays + 1` day-view reads per matching station.
    public func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) async throws -> [FreeSlot] {
        try await earliestFreeSlotsFromDayViews(matching: filter, at: now)
    }

    public func allBookingsByID() async throws -> [Booking] {
        try await selectBookings(
            "SELECT \(unescaped: CatalogLayout.columns) FROM bookings ORDER BY id", operation: "allBookingsByID")
    }

    /// A repeated request's answer: the booking its request id made, as it is now (moved, perhaps,
    /// since: then not at the slot the request names, as the in-memory stores answer it).
    func repeated(_ id: BookingID, operation: String) async throws -> Reservation {
        guard let booking = try await booking(id) else {
            throw PostgresStoreError(.unexpectedRow, operation: operation, message: "repeated booking \(id) not found")
        }
        return Reservation(booking: booking, isReplay: true)
    }

    /// The booking with `id`, if the database has it.
    public func booking(_ id: BookingID) async throws -> Booking? {
        try await selectBookings(
            "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(Int64(bitPattern: id.rawValue))",
            operation: "booking"
        ).first
    }

    /// The same precedence as the in-memory day view: time rules, then availability, then occupancy.
    static func status(time: Rejection.Reason?, open: UInt32, hour: Int, taken: Bool, held: Bool = false)
        -> SlotStatus
    {
        switch time {
        case .nonexistentLocalTime: return .nonexistent
        case .slotInPast: return .past
        case .tooSoon: return .tooSoon
        case .beyondHorizon: return .beyondHorizon
        default: break
        }
        if open == 0 { return .closed }
        if open & (1 << UInt32(hour)) == 0 { return .outsideHours }
        return taken ? .booked : held ? .held : .free
    }

    private func selectBookings(_ query: PostgresQuery, operation: String) async throws -> [Booking] {
        let rows = try await retrying(operation, idempotent: true) {
            try await self.rows(query)
        }
        return try rows.map { try layout.booking($0, operation: operation) }
    }
}
#endif
