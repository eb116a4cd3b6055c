#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

extension PostgresBookingService {
    /// A reservation as the code of migrations 1 to 4 made it, for the upgrade tests' old data:
    /// `slot_reserve` with the arguments every version takes, selecting only the columns every
    /// version returns (this version's ``reserve(_:at:)`` also selects `applied_limit`, which
    /// migration 5 added). Only for reservations that are accepted.
    func reserveAsEarlierCode(_ request: ReservationRequest, at now: Instant) async throws -> BookingID {
        let (rules, version) = rulesAndVersion
        let ref = try rules.catalog.resolve(request.slot)
        let (timeReason, start) = rules.timeCheck(ref, reminderSeconds: nil, at: now)
        let regular = Int32(bitPattern: layout.regular[Int(ref.socket)])
        let limit = Int32(clamping: rules.limit(for: request.user))
        let rows = try await rows(
            """
            SELECT reason, booking_id FROM slot_reserve(\(version), \(ref.station), \(ref.socket), \(ref.day),
                \(ref.hour), \(Int64(bitPattern: request.user.rawValue)), \(request.requestID?.rawValue),
                \(Int64?.none), \(now.secondsSinceEpoch), \(start.secondsSinceEpoch), \(timeReason?.rawValue),
                \(regular), \(limit))
            """)
        let (reason, id) = try #require(rows.first).decode((String?, Int64?).self)
        #expect(reason == nil, "refused under the earlier code: \(reason ?? "")")
        return BookingID(UInt64(bitPattern: try #require(id)))
    }
}
#endif
