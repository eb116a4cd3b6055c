import Foundation
import SlotScheduler
import Synchronization
import Testing

/// Holds under real threads on one ``Scheduler``: holds, confirms, releases and reservations of
/// the same few slots by different users, each thread with its own (rising) clock.
@Suite("HoldConcurrencyTests")
struct HoldConcurrencyTests {
    static let threads = 8
    static let rounds = 400

    /// No slot is ever both held and booked by different users: at the end no live hold shares a
    /// slot with an active booking at any of the threads' clocks, each slot has at most one active
    /// booking, every booking a confirm returned is its confirmer's, nobody passes the limits, and
    /// the journal replays (a replayed reservation of a slot held at its `now` is refused).
    @Test func neverHeldAndBookedByDifferentUsers() throws {
        let limit = 3
        let policy = Policy(maxUpcomingBookings: limit, hold: .seconds(120), maxHoldsPerUser: 2)
        let scheduler = try Fixture.scheduler(policy, shards: 2)
        let day = try Fixture.day()
        let slots = (8..<11).flatMap { hour in
            [Fixture.slot(day, hour), Fixture.slot("LON", "2", day, hour), Fixture.slot("IST", "1", day, hour)]
        }
        let start = try Fixture.earlyNow()
        let wrongOwner = Atomic<Int>(0)
        let confirmed = Atomic<Int>(0)
        let done = DispatchGroup()
        for t in 0..<Self.threads {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                let user = UserID(UInt64(t + 1))
                var seed = UInt64(t &* 7_919 &+ 1)
                for round in 0..<Self.rounds {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let slot = slots[Int(seed >> 33) % slots.count]
                    let now = Instant(secondsSinceEpoch: start.secondsSinceEpoch + Int64(round * 10))
                    switch (seed >> 20) % 4 {
                    case 0: _ = try? scheduler.hold(slot, for: user, at: now)
                    case 1:
                        if let booking = try? scheduler.confirm(slot, by: user, at: now) {
                            if booking.user != user { wrongOwner.add(1, ordering: .relaxed) }
                            confirmed.add(1, ordering: .relaxed)
                        }
                    case 2: _ = try? scheduler.releaseHold(slot, by: user, at: now)
                    default: _ = try? scheduler.reserve(ReservationRequest(slot: slot, user: user), at: now)
                    }
                }
            }
            thread.start()
        }
        done.wait()
        #expect(wrongOwner.load(ordering: .relaxed) == 0)
        #expect(confirmed.load(ordering: .relaxed) > 0, "some holds were confirmed")
        let active = scheduler.allBookings.filter { $0.status == .active }
        #expect(Set(active.map(\.slot)).count == active.count, "one booking per slot")
        let booked = Dictionary(uniqueKeysWithValues: active.map { ($0.slot, $0.user) })
        for round in stride(from: 0, through: Self.rounds, by: 10) {
            let now = Instant(secondsSinceEpoch: start.secondsSinceEpoch + Int64(round * 10))
            for hold in scheduler.holds(at: now) {
                #expect(booked[hold.slot] == nil, "\(hold.slot) held by \(hold.user), booked by another")
            }
        }
        for user in 1...Self.threads {
            #expect(active.filter { $0.user == UserID(UInt64(user)) }.count <= limit, "user \(user)")
        }
        let replayed = try Scheduler(rules: scheduler.rules, shards: 3, replaying: scheduler.events)
        #expect(replayed.snapshot() == scheduler.snapshot())
    }
}
