import Foundation
import SlotScheduler
import Synchronization
import Testing

/// Reschedules racing each other and reservations on real threads.
@Suite("RescheduleConcurrencyTests")
struct RescheduleConcurrencyTests {
    /// Four real threads walk 24 free target slots in the same order; at each, three move a
    /// booking there and one reserves it: exactly one call per round succeeds,
    /// no two active bookings ever share a slot, every booking that did not move still holds its
    /// slot, every one that moved left its old slot free, and the journal replays to the same state.
    @Test func movesAndReservesNeverShareASlot() throws {
        let rules = try AnySocketTests.rules()
        let scheduler = Scheduler(rules: rules, shards: 3)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let slot = { @Sendable (socket: Int, hour: Int) in
            Slot(station: "SIX", socket: SocketID("\(socket)"), date: day, hour: hour)
        }
        // 72 bookings in hours 0–11 of the six sockets, one per user; targets are hours 12–15.
        let made = try (0..<72).map { i in
            try scheduler.reserve(
                ReservationRequest(slot: slot(i % 6 + 1, i / 6), user: UserID(UInt64(i + 1))), at: now)
        }
        let wins = Atomic<Int>(0)
        // Every thread walks the 24 targets in the same order, so the four meet at each one.
        DispatchQueue.concurrentPerform(iterations: 4) { k in
            for round in 0..<24 {
                let target = slot(round % 6 + 1, 12 + round / 6)
                let won: Bool
                if k < 3 {
                    let booking = made[round * 3 + k]
                    won =
                        (try? scheduler.reschedule(
                            RescheduleRequest(booking: booking.id, user: booking.user, to: target), at: now)) != nil
                } else {
                    won =
                        (try? scheduler.reserve(
                            ReservationRequest(slot: target, user: UserID(UInt64(1_000 + round))), at: now)) != nil
                }
                if won { wins.add(1, ordering: .relaxed) }
            }
        }
        #expect(wins.load(ordering: .relaxed) == 24)
        let active = scheduler.allBookings.filter { $0.status == .active }
        #expect(Set(active.map(\.slot)).count == active.count, "two active bookings share a slot")
        for original in made {
            let current = try #require(scheduler.booking(original.id))
            #expect(current.status == .active)
            let left = try scheduler.status(of: original.slot, at: now)
            #expect(left == (current.slot == original.slot ? .booked : .free), "\(original.slot)")
        }
        #expect(try Scheduler(rules: rules, shards: 2, replaying: scheduler.events).snapshot() == scheduler.snapshot())
    }
}
