import Foundation
import SlotScheduler
import Testing

/// Snapshots whose bookings cannot be replayed as made in id order: a booking moved into the
/// slot of one with a higher id that had been cancelled or displaced before.
@Suite("Snapshots: a booking moved into a closed booking's slot")
struct SnapshotRestoreTests {
    /// Booking 1 (request id r1), booking 2 (r2) in another hour, booking 2 cancelled (or
    /// displaced by closing its hour and reopening it), booking 1 moved into booking 2's slot.
    static func script(displacing: Bool, on book: some BookingFace) throws -> (moved: Booking, closed: Booking) {
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let first = try book.reserve(Fixture.request(Fixture.slot(day, 8), user: 1, id: "r1"), at: now)
        let second = try book.reserve(Fixture.request(Fixture.slot(day, 10), user: 2, id: "r2"), at: now)
        if displacing {
            try book.change(.setHours(HourSet(0..<10), "LON", socket: "1", on: day), at: now)
            try book.change(.reopen("LON", socket: "1", on: day), at: now)
        } else {
            try book.cancel(second.id, by: 2, at: now)
        }
        let moved = try book.reschedule(
            RescheduleRequest(booking: first.id, user: 1, to: second.slot), at: now + .seconds(60))
        return (moved, try #require(book.booking(second.id)))
    }

    @Test(arguments: [false, true])
    func ledgerSnapshotRestores(displacing: Bool) throws {
        let face = LedgerFace(try Fixture.ledger())
        let (moved, closed) = try Self.script(displacing: displacing, on: face)
        #expect(closed.status == (displacing ? .displaced : .cancelled) && closed.slot == moved.slot)
        let snapshot = face.ledger.snapshot()
        let restored = try Ledger(rules: face.ledger.rules, snapshot: snapshot)
        #expect(restored.snapshot() == snapshot)
        #expect(try restored.status(of: moved.slot, at: try Fixture.earlyNow()) == .booked)
        // The closed booking's request id still names it; the moved one still holds its slot.
        var again = restored
        let retry = try again.book(Fixture.request(closed.slot, user: 2, id: "r2"), at: try Fixture.earlyNow())
        #expect(retry.isReplay && retry.booking == closed)
        for shards in [1, 3] {
            let scheduler = try Scheduler(rules: face.ledger.rules, shards: shards, snapshot: snapshot)
            #expect(scheduler.snapshot().bookings.map(\.status) == snapshot.bookings.map(\.status))
            #expect(try scheduler.status(of: moved.slot, at: try Fixture.earlyNow()) == .booked)
        }
    }

    @Test(arguments: [1, 3])
    func schedulerSnapshotRestores(shards: Int) throws {
        let rules = try Fixture.ledger().rules
        let face = SchedulerFace(Scheduler(rules: rules, shards: shards))
        let (moved, _) = try Self.script(displacing: false, on: face)
        let snapshot = face.scheduler.snapshot()
        let restored = try Scheduler(rules: rules, shards: shards, snapshot: snapshot)
        #expect(restored.snapshot() == snapshot)
        #expect(try Ledger(rules: rules, snapshot: snapshot).allBookings.count == 2)
        #expect(try restored.status(of: moved.slot, at: try Fixture.earlyNow()) == .booked)
    }
}

/// The calls the script makes, on a ledger or a scheduler.
protocol BookingFace {
    func reserve(_ request: ReservationRequest, at now: Instant) throws -> Booking
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) throws
    func change(_ change: AvailabilityChange, at now: Instant) throws
    func reschedule(_ request: RescheduleRequest, at now: Instant) throws -> Booking
    func booking(_ id: BookingID) -> Booking?
}

final class LedgerFace: BookingFace {
    var ledger: Ledger
    init(_ ledger: Ledger) { self.ledger = ledger }
    func reserve(_ request: ReservationRequest, at now: Instant) throws -> Booking {
        try ledger.reserve(request, at: now)
    }
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) throws { try ledger.cancel(id, by: user, at: now) }
    func change(_ change: AvailabilityChange, at now: Instant) throws { try ledger.changeAvailability(change, at: now) }
    func reschedule(_ request: RescheduleRequest, at now: Instant) throws -> Booking {
        try ledger.reschedule(request, at: now).booking
    }
    func booking(_ id: BookingID) -> Booking? { ledger.booking(id) }
}

struct SchedulerFace: BookingFace {
    let scheduler: Scheduler
    init(_ scheduler: Scheduler) { self.scheduler = scheduler }
    func reserve(_ request: ReservationRequest, at now: Instant) throws -> Booking {
        try scheduler.reserve(request, at: now)
    }
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) throws {
        try scheduler.cancel(id, by: user, at: now)
    }
    func change(_ change: AvailabilityChange, at now: Instant) throws {
        try scheduler.changeAvailability(change, at: now)
    }
    func reschedule(_ request: RescheduleRequest, at now: Instant) throws -> Booking {
        try scheduler.reschedule(request, at: now).booking
    }
    func booking(_ id: BookingID) -> Booking? { scheduler.booking(id) }
}
