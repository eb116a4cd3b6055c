#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler

/// Check-in and no-shows on the database (migration 5), with the in-memory scheduler's refusals.
///
/// **What the database enforces.** `booking_check_in` decides a check-in under the booking's row
/// lock with the window of the stored policy (the version the caller checked), so it is ordered
/// with every cancel, move and other check-in of the booking. `user_limit` lowers a user's limit
/// (`Policy.noShowLimit`) inside `slot_reserve`, `slot_hold` and `slot_reserve_any`, and in
/// confirm and reschedule, right after the per-user lock and beside the count of what the limit
/// counts: two reservations of one user never both pass the lowered limit. A no-show is decided
/// by `now` alone; nothing is written for it.
extension PostgresBookingService {
    /// Checks a booking in (`booking_check_in`); see `Scheduler.checkIn(_:by:at:)`. A repeat
    /// returns the booking as the first check-in left it, so a retry after a lost reply is safe.
    public func checkIn(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        let raw = Int64(bitPattern: id.rawValue)
        while true {
            let (rules, version) = rulesAndVersion
            let result: Result<Booking, Rejection>? = try await retrying("checkIn", idempotent: true) {
                try await self.transaction { c in
                    let rows = try await c.allRows(
                        """
                        SELECT reason FROM booking_check_in(\(version), \(raw), \(Int64(bitPattern: user.rawValue)),
                            \(now.secondsSinceEpoch))
                        """, logger: self.logger
                    )
                    guard let row = rows.first else {
                        throw PostgresStoreError(.unexpectedRow, operation: "checkIn", message: "no row")
                    }
                    let reason = try CatalogLayout.decoding("checkIn") { try row.decode(String?.self) }
                    if reason == "stalePolicy" { return nil }
                    if reason == "unknownBooking" {
                        return .failure(Rejection(.unknownBooking, booking: id, user: user))
                    }
                    let booked = try await c.allRows(
                        "SELECT \(unescaped: CatalogLayout.columns) FROM bookings WHERE id = \(raw)",
                        logger: self.logger
                    )
                    guard let stored = booked.first else {
                        throw PostgresStoreError(.unexpectedRow, operation: "checkIn", message: "no booking \(raw)")
                    }
                    let booking = try self.layout.booking(stored, operation: "checkIn")
                    guard let reason else { return .success(booking) }
                    let known = try Self.reason(reason, operation: "checkIn")
                    return .failure(rules.checkInRefusal(known, of: booking, by: user, at: now))
                }
            }
            guard let result else {
                if try await reloadRules() { return try await checkIn(id, by: user, at: now) }
                continue
            }
            return try result.get()
        }
    }
}
#endif
