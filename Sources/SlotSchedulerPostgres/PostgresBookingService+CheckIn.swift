#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler

/// Check-in, no-shows and check-out on the database (migrations 5 and 14), with the in-memory
/// scheduler's refusals.
///
/// **What the database enforces.** `booking_check_in` decides a check-in under the booking's row
/// lock with the window of the stored policy (the version the caller checked), so it is ordered
/// with every cancel, move, check-out and other check-in of the booking. `user_limit` lowers a
/// user's limit (`Policy.noShowLimit`) inside `slot_reserve`, `slot_hold` and `slot_reserve_any`,
/// and in confirm and reschedule, right after the per-user lock and beside the count of what the
/// limit counts: two reservations of one user never both pass the lowered limit. A no-show is
/// decided by `now` alone; nothing is written for it.
///
/// **Access codes.** The codes are the catalog's (`Socket.accessCode`). The store compares the
/// code presented with its own catalog's for the booking's socket, read under the booking's row
/// lock, and `booking_check_in` checks that this catalog is the database's (the version the
/// store passes: a catalog change bumps it, and a stale instance reloads the catalog and compares
/// again), so a changed code is enforced from the change's commit on.
///
/// **Check-out.** `booking_check_out` ends a checked-in booking under its row lock: `fulfilled`,
/// with `checked_out_at`. Its slot leaves the active-slot index, and the booking every count of
/// the user's limit, as a cancelled one does.
extension PostgresBookingService {
    /// Checks a booking in (`booking_check_in`), presenting its socket's access code when the
    /// socket has one; see `Scheduler.checkIn(_:by:accessCode:at:)`. A repeat returns the booking
    /// as the first check-in left it, so a retry after a lost reply is safe.
    public func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws
        -> Booking
    {
        let raw = Int64(bitPattern: id.rawValue)
        while true {
            let (rules, version, layout) = inForce
            let result: Result<Booking, Rejection>? = try await retrying("checkIn", idempotent: true) {
                try await self.transaction { c in
                    // The booking's socket under its row lock (a move waits), for the code's check.
                    let booked = try await c.allRows(
                        "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(raw) FOR UPDATE",
                        logger: self.logger
                    )
                    let socket = try booked.first.map { row in
                        try CatalogLayout.decoding("checkIn") { try row.decode((Int64, Int32, Int32).self).2 }
                    }
                    let accepted = socket.map { layout.acceptsAccessCode(accessCode, socket: $0) } ?? true
                    let rows = try await c.allRows(
                        """
                        SELECT reason, checked_at FROM booking_check_in(\(version), \(raw),
                            \(Int64(bitPattern: user.rawValue)), \(now.secondsSinceEpoch), \(accepted))
                        """, logger: self.logger
                    )
                    guard let row = rows.first else {
                        throw PostgresStoreError(.unexpectedRow, operation: "checkIn", message: "no row")
                    }
                    let (reason, checkedAt) = try CatalogLayout.decoding("checkIn") {
                        try row.decode((String?, Int64?).self)
                    }
                    if reason == "stalePolicy" { return nil }
                    guard let stored = booked.first else {
                        guard reason == "unknownBooking" else {
                            throw PostgresStoreError(.unexpectedRow, operation: "checkIn", message: "no booking \(raw)")
                        }
                        return .failure(Rejection(.unknownBooking, booking: id, user: user))
                    }
                    var booking = try layout.booking(stored, operation: "checkIn")
                    guard let reason else {
                        guard let checkedAt else {
                            throw PostgresStoreError(.unexpectedRow, operation: "checkIn", message: "no check-in time")
                        }
                        booking.checkedInAt = Instant(secondsSinceEpoch: checkedAt)
                        return .success(booking)
                    }
                    let known = try Self.reason(reason, operation: "checkIn")
                    return .failure(rules.checkInRefusal(known, of: booking, by: user, at: now))
                }
            }
            guard let result else {
                if try await reloadRules() { return try await checkIn(id, by: user, accessCode: accessCode, at: now) }
                continue
            }
            return try result.get()
        }
    }

    /// Checks a checked-in booking out (`booking_check_out`); see `Scheduler.checkOut(_:by:at:)`:
    /// the booking is `fulfilled` with its `checkedOutAt`, its slot is free and it no longer
    /// counts against its user's limit. Not repeatable: a second check-out is refused
    /// `alreadyCheckedOut`, so a reply lost after the `COMMIT` leaves the outcome unknown
    /// (``PostgresStoreError/Kind/outcomeUnknown``); ``booking(_:)`` tells.
    public func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        let raw = Int64(bitPattern: id.rawValue)
        while true {
            let (_, version, layout) = inForce
            let result: Result<Booking, Rejection>? = try await retrying("checkOut", idempotent: false) {
                try await self.transaction { c in
                    let rows = try await c.allRows(
                        """
                        SELECT reason FROM booking_check_out(\(version), \(raw), \(Int64(bitPattern: user.rawValue)),
                            \(now.secondsSinceEpoch))
                        """, logger: self.logger
                    )
                    guard let row = rows.first else {
                        throw PostgresStoreError(.unexpectedRow, operation: "checkOut", message: "no row")
                    }
                    let reason = try CatalogLayout.decoding("checkOut") { try row.decode(String?.self) }
                    if reason == "stalePolicy" { return nil }
                    if reason == "unknownBooking" {
                        return .failure(Rejection(.unknownBooking, booking: id, user: user))
                    }
                    let booked = try await c.allRows(
                        "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(raw)",
                        logger: self.logger
                    )
                    guard let stored = booked.first else {
                        throw PostgresStoreError(.unexpectedRow, operation: "checkOut", message: "no booking \(raw)")
                    }
                    let booking = try layout.booking(stored, operation: "checkOut")
                    guard let reason else { return .success(booking) }
                    let known = try Self.reason(reason, operation: "checkOut")
                    return .failure(Rejection(known, slot: booking.slot, booking: id, user: user))
                }
            }
            guard let result else {
                if try await reloadRules() { return try await checkOut(id, by: user, at: now) }
                continue
            }
            return try result.get()
        }
    }
}
#endif
