#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler

/// Holds, reschedule and any free socket on the database (migration 3), with the in-memory
/// scheduler's refusals.
///
/// **What the database enforces.** At most one current hold per slot (a partial unique index).
/// A hold, a confirm and a reschedule take their slot's socket-day advisory lock *exclusively*;
/// reservations and any-socket bookings take it shared (availability changes exclusively, as
/// before). So between a hold's check that the slot has no active booking and its insert, no
/// booking of that socket-day can commit, and a reservation's check for a live hold runs after
/// every hold of that socket-day committed before it: a slot is never both held and booked by
/// different users. A user's limit is counted (upcoming bookings plus live holds, `user_upcoming`)
/// under the per-user advisory lock in every command that takes a slot. Expiry is decided by the
/// caller's `now`, never the database clock.
extension PostgresBookingService {
    // MARK: - Any free socket

    /// Books the first free matching socket (catalog order) in one statement (`slot_reserve_any`);
    /// see `Scheduler.book(_:at:)`.
    public func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        let candidates = try rules.resolve(request)
        let sockets = candidates.map(\.socket)
        guard let first = candidates.first, sockets.allSatisfy({ layout.regular.indices.contains(Int($0)) }) else {
            throw PostgresStoreError(.unexpectedRow, operation: "reserveAny", message: "candidates \(sockets)")
        }
        let masks = sockets.map { Int32(bitPattern: layout.regular[Int($0)]) }
        let reminder = request.reminder.map { $0.components.seconds }
        while true {
            let (rules, version) = rulesAndVersion
            let (timeReason, start) = rules.timeCheck(first, reminderSeconds: reminder, at: now)
            let limit = Int32(clamping: rules.limit(for: request.user))
            let query: PostgresQuery = """
                SELECT reason, booking_id, chosen_socket, start_at, created_at, reminder, status, is_repeat,
                    applied_limit
                FROM slot_reserve_any(\(version), \(first.station), \(sockets)::integer[], \(masks)::integer[],
                    \(first.day), \(first.hour), \(Int64(bitPattern: request.user.rawValue)),
                    \(request.requestID?.rawValue), \(reminder), \(now.secondsSinceEpoch), \(start.secondsSinceEpoch),
                    \(timeReason?.rawValue), \(limit))
                """
            let row = try await retrying("reserveAny", idempotent: request.requestID != nil) {
                try await self.transaction { connection in
                    try await connection.allRows(query, logger: self.logger).first
                }
            }
            guard let row else {
                throw PostgresStoreError(.unexpectedRow, operation: "reserveAny", message: "no row")
            }
            let (reason, id, chosen, storedStart, createdAt, storedReminder, status, isRepeat, applied) =
                try CatalogLayout.decoding("reserveAny") {
                    try row.decode((String?, Int64?, Int32?, Int64?, Int64?, Int64?, String?, Bool?, Int32?).self)
                }
            let ref = candidates.first { $0.socket == chosen } ?? first
            if reason == "stalePolicy" {
                if try await reloadRules() { return try await book(request, at: now) }
                continue
            }
            if let reason {
                let known = try Self.reason(reason, operation: "reserveAny")
                throw Self.applying(
                    applied, to: rules.anySocketRejection(known, request: request, ref: ref, start: start, at: now))
            }
            guard let id, let chosen, let storedStart, let createdAt, let status,
                let parsed = Booking.Status(rawValue: status)
            else {
                throw PostgresStoreError(.unexpectedRow, operation: "reserveAny", message: "incomplete booking row")
            }
            if isRepeat == true {
                return try await repeated(BookingID(UInt64(bitPattern: id)), operation: "reserveAny")
            }
            let booking = Booking(
                id: BookingID(UInt64(bitPattern: id)),
                slot: try layout.slot(socket: chosen, day: first.day, hour: first.hour, operation: "reserveAny"),
                user: request.user, start: Instant(secondsSinceEpoch: storedStart),
                createdAt: Instant(secondsSinceEpoch: createdAt), requestID: request.requestID,
                reminderOffsetSeconds: storedReminder, status: parsed)
            return Reservation(booking: booking, isReplay: isRepeat == true)
        }
    }

    /// Books the first free matching socket, as ``book(_:at:)-(AnySocketRequest,_)``.
    public func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        try await book(request, at: now).booking
    }

    // MARK: - Holds

    /// Holds a slot in one statement (`slot_hold`); see `Scheduler.hold(_:for:reminder:at:)`.
    /// Not repeated after a reply lost in flight (a repeat would find its own hold: `slotHeld`).
    public func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold {
        let ref = try rules.catalog.resolve(slot)
        let duration = reminder
        let reminder = reminder.map { $0.components.seconds }
        let socket = try regularMask(ref, operation: "hold")
        while true {
            let (rules, version) = rulesAndVersion
            let (timeReason, start) = rules.timeCheck(ref, reminderSeconds: reminder, at: now)
            let limit = Int32(clamping: rules.limit(for: user))
            let expires = Self.saturatingSum(now.secondsSinceEpoch, rules.policy.holdSeconds)
            let query: PostgresQuery = """
                SELECT reason, hold_id, applied_limit FROM slot_hold(\(version), \(ref.station), \(ref.socket), \(ref.day),
                    \(ref.hour), \(Int64(bitPattern: user.rawValue)), \(reminder), \(now.secondsSinceEpoch),
                    \(start.secondsSinceEpoch), \(expires), \(timeReason?.rawValue), \(socket), \(limit),
                    \(Int32(clamping: rules.policy.maxHoldsPerUser)))
                """
            let row = try await retrying("hold", idempotent: false) {
                try await self.transaction { connection in
                    try await connection.allRows(query, logger: self.logger).first
                }
            }
            guard let row else { throw PostgresStoreError(.unexpectedRow, operation: "hold", message: "no row") }
            let (reason, id, applied) = try CatalogLayout.decoding("hold") {
                try row.decode((String?, Int64?, Int32?).self)
            }
            if reason == "stalePolicy" {
                if try await reloadRules() { return try await hold(slot, for: user, reminder: duration, at: now) }
                continue
            }
            if let reason {
                let known = try Self.reason(reason, operation: "hold")
                throw Self.applying(
                    applied,
                    to: rules.rejection(
                        known, ref: ref, user: user, requestID: RequestID?.none, reminderSeconds: reminder,
                        start: start, at: now))
            }
            guard id != nil else { throw PostgresStoreError(.unexpectedRow, operation: "hold", message: "no hold id") }
            return Hold(
                slot: slot, user: user, start: start, createdAt: now, expiresAt: Instant(secondsSinceEpoch: expires),
                reminderOffsetSeconds: reminder)
        }
    }

    /// Turns the user's live hold into a booking in one transaction; see
    /// `Scheduler.confirm(_:by:at:)`. Repeatable: a confirm of a confirmed hold returns its booking.
    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        let ref = try rules.catalog.resolve(slot)
        let regular = try regularMask(ref, operation: "confirm")
        while true {
            let (rules, version) = rulesAndVersion
            let limit = rules.limit(for: user)
            let result: Result<Booking, Rejection>? = try await retrying("confirm", idempotent: true) {
                try await self.transaction { c in
                    try await c.allRows("SELECT pg_advisory_xact_lock(\(ref.socket), \(ref.day))", logger: self.logger)
                    guard try await self.policyIsCurrent(version, on: c) else { return nil }
                    guard let hold = try await self.latestHold(ref, of: user, on: c, operation: "confirm") else {
                        return .failure(Rejection(.unknownHold, slot: slot, user: user))
                    }
                    switch hold.state {
                    case "released": return .failure(Rejection(.unknownHold, slot: slot, user: user))
                    case "confirmed":
                        let rows = try await c.allRows(
                            "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(hold.booking ?? -1)",
                            logger: self.logger
                        )
                        guard let row = rows.first else {
                            throw PostgresStoreError(.unexpectedRow, operation: "confirm", message: "no booking")
                        }
                        return .success(try self.layout.booking(row, operation: "confirm"))
                    default:
                        guard hold.state == "held", Hold.isLive(expiresAt: hold.expiresAt, at: now.secondsSinceEpoch)
                        else {
                            return .failure(
                                rules.holdExpiredRejection(
                                    slot: slot, user: user, expiresAt: Instant(secondsSinceEpoch: hold.expiresAt)))
                        }
                    }
                    let (timeReason, start) = rules.timeCheck(ref, reminderSeconds: hold.reminder, at: now)
                    func refuse(_ reason: Rejection.Reason, applied: Int? = nil) -> Result<Booking, Rejection> {
                        .failure(
                            Self.applying(
                                applied.map(Int32.init(clamping:)),
                                to: rules.rejection(
                                    reason, ref: ref, user: user, requestID: nil, reminderSeconds: hold.reminder,
                                    start: start, at: now)))
                    }
                    if let timeReason { return refuse(timeReason) }
                    if let closed = try await self.closedReason(ref, regular: regular, on: c) { return refuse(closed) }
                    // The hold counts among the user's upcoming bookings and holds; the booking takes its place.
                    let (upcoming, applied) = try await self.upcoming(user, at: now, except: nil, limit: limit, on: c)
                    if upcoming - 1 >= applied { return refuse(.userLimitReached, applied: applied) }
                    let inserted = try await c.allRows(
                        """
                        INSERT INTO bookings (station_idx, socket_idx, day, hour, user_id, start_at, created_at, reminder)
                        VALUES (\(ref.station), \(ref.socket), \(ref.day), \(ref.hour), \(Int64(bitPattern: user.rawValue)),
                                \(start.secondsSinceEpoch), \(now.secondsSinceEpoch), \(hold.reminder))
                        RETURNING id
                        """, logger: self.logger
                    )
                    guard
                        let id = try inserted.first.map({ row in
                            try CatalogLayout.decoding("confirm") { try row.decode(Int64.self) }
                        })
                    else { throw PostgresStoreError(.unexpectedRow, operation: "confirm", message: "no booking id") }
                    try await c.allRows(
                        "UPDATE holds SET state = 'confirmed', booking_id = \(id) WHERE id = \(hold.id)",
                        logger: self.logger)
                    return .success(
                        Booking(
                            id: BookingID(UInt64(bitPattern: id)), slot: slot, user: user, start: start, createdAt: now,
                            reminderOffsetSeconds: hold.reminder))
                }
            }
            guard let result else {
                if try await reloadRules() { return try await confirm(slot, by: user, at: now) }
                continue
            }
            return try result.get()
        }
    }

    /// Releases the user's live hold of a slot; see `Scheduler.releaseHold(_:by:at:)`.
    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        let ref = try rules.catalog.resolve(slot)
        let rules = rules
        let result: Result<Hold, Rejection> = try await retrying("releaseHold", idempotent: false) {
            try await self.transaction { c in
                guard let hold = try await self.latestHold(ref, of: user, on: c, operation: "releaseHold"),
                    hold.state == "held" || hold.state == "overtaken"
                else { return .failure(Rejection(.unknownHold, slot: slot, user: user)) }
                guard hold.state == "held", Hold.isLive(expiresAt: hold.expiresAt, at: now.secondsSinceEpoch) else {
                    return .failure(
                        rules.holdExpiredRejection(
                            slot: slot, user: user, expiresAt: Instant(secondsSinceEpoch: hold.expiresAt)))
                }
                try await c.allRows("UPDATE holds SET state = 'released' WHERE id = \(hold.id)", logger: self.logger)
                return .success(hold.value(slot: slot, user: user))
            }
        }
        return try result.get()
    }

    /// The holds that live at `now`, by slot.
    public func holds(at now: Instant) async throws -> [Hold] {
        let rows = try await retrying("holds", idempotent: true) {
            try await self.rows(
                """
                SELECT socket_idx, day, hour, user_id, start_at, created_at, expires_at, reminder FROM holds
                WHERE state = 'held' AND expires_at > \(now.secondsSinceEpoch)
                """)
        }
        return try rows.map { row in
            let (socket, day, hour, user, start, created, expires, reminder) = try CatalogLayout.decoding("holds") {
                try row.decode((Int32, Int32, Int32, Int64, Int64, Int64, Int64, Int64?).self)
            }
            return Hold(
                slot: try layout.slot(socket: socket, day: day, hour: hour, operation: "holds"),
                user: UserID(UInt64(bitPattern: user)), start: Instant(secondsSinceEpoch: start),
                createdAt: Instant(secondsSinceEpoch: created), expiresAt: Instant(secondsSinceEpoch: expires),
                reminderOffsetSeconds: reminder)
        }.sorted { $0.slot < $1.slot }
    }

    // MARK: - Reschedule

    /// Moves a booking in one transaction: the new slot taken and the old one freed at its
    /// COMMIT, the limit counted without the booking; see `Scheduler.reschedule(_:at:)`.
    /// Repeatable with a request id (remembered in `reschedule_requests`).
    public func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        let ref = try rules.resolve(request)
        let regular = try regularMask(ref, operation: "reschedule")
        let user = Int64(bitPattern: request.user.rawValue)
        let id = Int64(bitPattern: request.booking.rawValue)
        while true {
            let (rules, version) = rulesAndVersion
            let result: Result<Reservation, Rejection>? = try await retrying(
                "reschedule", idempotent: request.requestID != nil
            ) {
                try await self.transaction { c in
                    // Exclusive: no reservation or hold of the new slot's socket-day runs until COMMIT.
                    try await c.allRows("SELECT pg_advisory_xact_lock(\(ref.socket), \(ref.day))", logger: self.logger)
                    guard try await self.policyIsCurrent(version, on: c) else { return nil }
                    var refusal = Rejection(
                        .unknownBooking, slot: request.slot, booking: request.booking, user: request.user,
                        requestID: request.requestID)
                    let rows = try await c.allRows(
                        "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(id) FOR UPDATE",
                        logger: self.logger
                    )
                    guard let row = rows.first else { return .failure(refusal) }
                    var booking = try self.layout.booking(row, operation: "reschedule")
                    if let requestID = request.requestID {
                        let seen = try await c.allRows(
                            """
                            SELECT booking_id, socket_idx, day, hour FROM reschedule_requests
                            WHERE user_id = \(user) AND request_id = \(requestID.rawValue)
                            """, logger: self.logger
                        )
                        if let seen = seen.first {
                            let (b, s, d, h) = try CatalogLayout.decoding("reschedule") {
                                try seen.decode((Int64, Int32, Int32, Int32).self)
                            }
                            guard b == id, s == ref.socket, d == ref.day, h == ref.hour else {
                                refusal.reason = .conflictingRequestID
                                refusal.value = requestID.rawValue
                                return .failure(refusal)
                            }
                            return .success(Reservation(booking: booking, isReplay: true))
                        }
                    }
                    if let refused = rules.rescheduleRefusal(of: booking, by: request.user, at: now) {
                        return .failure(refused)
                    }
                    guard booking.slot.station == request.slot.station else {
                        refusal.reason = .rescheduleToOtherStation
                        refusal.value = booking.slot.station.rawValue
                        return .failure(refusal)
                    }
                    let reminder = booking.reminderOffsetSeconds
                    let (timeReason, start) = rules.timeCheck(ref, reminderSeconds: reminder, at: now)
                    func refuse(_ reason: Rejection.Reason, applied: Int? = nil) -> Result<Reservation, Rejection> {
                        var rejection = Self.applying(
                            applied.map(Int32.init(clamping:)),
                            to: rules.rejection(
                                reason, ref: ref, user: request.user, requestID: request.requestID,
                                reminderSeconds: reminder, start: start, at: now))
                        rejection.booking = request.booking
                        return .failure(rejection)
                    }
                    if let timeReason { return refuse(timeReason) }
                    if let closed = try await self.closedReason(ref, regular: regular, on: c) { return refuse(closed) }
                    let occupant = try await c.allRows(
                        """
                        SELECT id FROM bookings
                        WHERE day = \(ref.day) AND socket_idx = \(ref.socket) AND hour = \(ref.hour) AND status = 'active'
                        """, logger: self.logger
                    )
                    if let other = try occupant.first.map({ row in
                        try CatalogLayout.decoding("reschedule") { try row.decode(Int64.self) }
                    }), other != id {
                        return refuse(.slotTaken)
                    }
                    let expired = try await self.currentHold(ref, on: c)
                    if let hold = expired, Hold.isLive(expiresAt: hold.expiresAt, at: now.secondsSinceEpoch) {
                        return refuse(.slotHeld)
                    }
                    // The booking is upcoming (the cutoff passed): not counted a second time.
                    let (upcoming, applied) = try await self.upcoming(
                        booking.user, at: now, except: id, limit: rules.limit(for: booking.user), on: c)
                    if upcoming >= applied { return refuse(.userLimitReached, applied: applied) }
                    try await c.allRows(
                        """
                        UPDATE bookings SET socket_idx = \(ref.socket), day = \(ref.day), hour = \(ref.hour),
                            start_at = \(start.secondsSinceEpoch), checked_in_at = NULL
                        WHERE id = \(id)
                        """, logger: self.logger)
                    if let requestID = request.requestID {
                        try await c.allRows(
                            """
                            INSERT INTO reschedule_requests (user_id, request_id, booking_id, socket_idx, day, hour)
                            VALUES (\(user), \(requestID.rawValue), \(id), \(ref.socket), \(ref.day), \(ref.hour))
                            """, logger: self.logger)
                    }
                    if let hold = expired {
                        try await c.allRows(
                            "UPDATE holds SET state = 'overtaken' WHERE id = \(hold.id)", logger: self.logger)
                    }
                    booking.slot = try self.layout.slot(
                        socket: ref.socket, day: ref.day, hour: ref.hour, operation: "reschedule")
                    booking.start = start
                    booking.checkedInAt = nil  // a move clears the check-in, as in the core
                    return .success(Reservation(booking: booking, isReplay: false))
                }
            }
            guard let result else {
                if try await reloadRules() { return try await reschedule(request, at: now) }
                continue
            }
            return try result.get()
        }
    }

    // MARK: - Shared steps

    /// A hold row: what confirm and release read.
    struct HoldRow: Sendable {
        var id: Int64
        var start: Int64
        var createdAt: Int64
        var expiresAt: Int64
        var reminder: Int64?
        var state: String
        var booking: Int64?

        func value(slot: Slot, user: UserID) -> Hold {
            Hold(
                slot: slot, user: user, start: Instant(secondsSinceEpoch: start),
                createdAt: Instant(secondsSinceEpoch: createdAt), expiresAt: Instant(secondsSinceEpoch: expiresAt),
                reminderOffsetSeconds: reminder)
        }
    }

    static let holdColumns = "id, start_at, created_at, expires_at, reminder, state, booking_id"

    static func holdRow(_ row: PostgresRow, operation: String) throws(PostgresStoreError) -> HoldRow {
        let (id, start, created, expires, reminder, state, booking) = try CatalogLayout.decoding(operation) {
            try row.decode((Int64, Int64, Int64, Int64, Int64?, String, Int64?).self)
        }
        return HoldRow(
            id: id, start: start, createdAt: created, expiresAt: expires, reminder: reminder, state: state,
            booking: booking)
    }

    /// The user's latest hold of `ref`, row-locked (the one `Scheduler` would confirm or release).
    func latestHold(_ ref: SlotRef, of user: UserID, on c: PostgresConnection, operation: String) async throws
        -> HoldRow?
    {
        let rows = try await c.allRows(
            """
            SELECT \(unescaped: Self.holdColumns) FROM holds
            WHERE user_id = \(Int64(bitPattern: user.rawValue)) AND socket_idx = \(ref.socket) AND day = \(ref.day)
                AND hour = \(ref.hour)
            ORDER BY id DESC LIMIT 1 FOR UPDATE
            """, logger: logger
        )
        return try rows.first.map { row throws(PostgresStoreError) in try Self.holdRow(row, operation: operation) }
    }

    /// The slot's current (`held`) hold, live or expired.
    func currentHold(_ ref: SlotRef, on c: PostgresConnection) async throws -> HoldRow? {
        let rows = try await c.allRows(
            """
            SELECT \(unescaped: Self.holdColumns) FROM holds
            WHERE day = \(ref.day) AND socket_idx = \(ref.socket) AND hour = \(ref.hour) AND state = 'held'
            """, logger: logger
        )
        return try rows.first.map { row throws(PostgresStoreError) in try Self.holdRow(row, operation: "hold") }
    }

    /// `socketClosed` or `outsideOpeningHours` for `ref`'s socket-day, read in this transaction.
    func closedReason(_ ref: SlotRef, regular: Int32, on c: PostgresConnection) async throws -> Rejection.Reason? {
        let rows = try await c.allRows(
            "SELECT mask FROM availability WHERE socket_idx = \(ref.socket) AND day = \(ref.day)", logger: logger
        )
        let mask = try rows.first.map { row in try CatalogLayout.decoding("availability") { try row.decode(Int32.self) }
        }
        let open = UInt32(bitPattern: mask ?? regular)
        if open & (1 << UInt32(ref.hour)) != 0 { return nil }
        return open == 0 ? .socketClosed : .outsideOpeningHours
    }

    /// What the user's limit counts at `now`, and the limit that applies (`limit`, or the
    /// `Policy.noShowLimit` one: `user_limit`), under the per-user lock (taken here, in a
    /// statement of its own, so the count sees every booking and hold committed by an earlier holder).
    func upcoming(_ user: UserID, at now: Instant, except booking: Int64?, limit: Int, on c: PostgresConnection)
        async throws -> (upcoming: Int, limit: Int)
    {
        let raw = Int64(bitPattern: user.rawValue)
        try await c.allRows("SELECT pg_advisory_xact_lock(\(raw))", logger: logger)
        let rows = try await c.allRows(
            """
            SELECT user_upcoming(\(raw), \(now.secondsSinceEpoch), \(booking)),
                user_limit(\(raw), \(now.secondsSinceEpoch), \(Int32(clamping: limit)))
            """, logger: logger
        )
        guard let row = rows.first else {
            throw PostgresStoreError(.unexpectedRow, operation: "limit", message: "user_upcoming returned no row")
        }
        let (count, applied) = try CatalogLayout.decoding("limit") { try row.decode((Int32, Int32).self) }
        return (Int(count), Int(applied))
    }

    /// A refusal with the limit the database applied (`applied_limit`: the user's own or the
    /// `Policy.noShowLimit` one), when it refused for the limit.
    static func applying(_ applied: Int32?, to rejection: Rejection) -> Rejection {
        guard rejection.reason == .userLimitReached, let applied else { return rejection }
        var r = rejection
        r.limit = Int(applied)
        return r
    }

    /// Whether the database's policy is still version `version`.
    func policyIsCurrent(_ version: Int32, on c: PostgresConnection) async throws -> Bool {
        let rows = try await c.allRows("SELECT policy_version FROM deployment", logger: logger)
        return try rows.first.map { row in try CatalogLayout.decoding("policy") { try row.decode(Int32.self) } }
            == version
    }

    /// The regular open hours of `ref`'s socket, as the SQL functions take them.
    func regularMask(_ ref: SlotRef, operation: String) throws(PostgresStoreError) -> Int32 {
        guard layout.regular.indices.contains(Int(ref.socket)) else {
            throw PostgresStoreError(.unexpectedRow, operation: operation, message: "socket index \(ref.socket)")
        }
        return Int32(bitPattern: layout.regular[Int(ref.socket)])
    }

    /// A refusal reason the database returned.
    static func reason(_ raw: String, operation: String) throws(PostgresStoreError) -> Rejection.Reason {
        guard let known = Rejection.Reason(rawValue: raw) else {
            throw PostgresStoreError(.unexpectedRow, operation: operation, message: "unknown reason \(raw)")
        }
        return known
    }

    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }
}
#endif
