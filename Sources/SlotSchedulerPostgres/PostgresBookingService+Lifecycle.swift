#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler

/// Holds, reschedule and any-socket booking: not in the database schema yet, so each throws
/// ``PostgresStoreError/Kind/unsupported`` (never a refusal) and changes nothing.
extension PostgresBookingService {
    public func book(_ request: AnySocketRequest, at now: Instant) async throws -> Reservation {
        throw Self.unsupported("reserveAny")
    }

    public func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        throw Self.unsupported("reserveAny")
    }

    public func hold(_ slot: Slot, for user: UserID, reminder: Duration?, at now: Instant) async throws -> Hold {
        throw Self.unsupported("hold")
    }

    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        throw Self.unsupported("confirm")
    }

    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Hold {
        throw Self.unsupported("releaseHold")
    }

    public func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        throw Self.unsupported("reschedule")
    }

    /// No holds: the store cannot make any yet.
    public func holds(at now: Instant) async throws -> [Hold] { [] }

    static func unsupported(_ operation: String) -> PostgresStoreError {
        PostgresStoreError(.unsupported, operation: operation, message: "not in the database schema yet")
    }
}
#endif
