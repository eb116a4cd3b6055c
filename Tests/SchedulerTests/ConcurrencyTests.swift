import SlotScheduler
import Testing

/// Real concurrency on ``Scheduler``. CI also runs this suite under ThreadSanitizer
/// (`swift test --sanitize=thread --filter ConcurrencyTests`).
@Suite("ConcurrencyTests")
struct ConcurrencyTests {
    static let taskCount = 32

    /// The slots the races are about: 2 sockets of 3 stations, hours 8–11 of the fixture day (24 slots).
    private static func contested() throws -> [Slot] {
        let day = try Fixture.day()
        var slots: [Slot] = []
        for station: StationID in ["LON", "IST", "CKR"] {
            for socket: SocketID in station == "LON" ? ["1", "2"] : ["1"] {
                for hour in 8..<12 { slots.append(Fixture.slot(station, socket, day, hour)) }
            }
        }
        return slots
    }

    /// Active bookings grouped by slot, from `allBookings` (sorted by id, so deterministic).
    private static func activeBySlot(_ scheduler: Scheduler) -> [Slot: [Booking]] {
        Dictionary(grouping: scheduler.allBookings.filter { $0.status == .active }, by: \.slot)
    }

    /// 32 tasks race for the same slots, each as a different user: every slot has exactly one winner.
    @Test func oneWinnerPerSlot() async throws {
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 100), shards: 4)
        let slots = try Self.contested()
        let now = try Fixture.earlyNow()
        let accepted = await withTaskGroup(of: Int.self) { group in
            for task in 0..<Self.taskCount {
                group.addTask {
                    var wins = 0
                    // Each task walks the slots from a different starting point to vary the interleaving.
                    for i in 0..<slots.count {
                        let slot = slots[(i + task) % slots.count]
                        let request = ReservationRequest(slot: slot, user: UserID(UInt64(task + 1)))
                        if (try? scheduler.reserve(request, at: now)) != nil { wins += 1 }
                    }
                    return wins
                }
            }
            return await group.reduce(0, +)
        }
        #expect(accepted == slots.count)
        let bySlot = Self.activeBySlot(scheduler)
        #expect(scheduler.allBookings.count == slots.count)
        for slot in slots { #expect(bySlot[slot]?.count == 1, "slot \(slot)") }
        for slot in slots { #expect(try scheduler.status(of: slot, at: now) == .booked) }
    }

    /// Tasks race with batches over the same slots and a few shared users: every slot has at
    /// most one active booking and no user passes the limit.
    @Test func batchesKeepEveryRule() async throws {
        let limit = 4
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: limit), shards: 2)
        let refs = try Self.contested().map { try scheduler.rules.catalog.resolve($0) }
        let now = try Fixture.earlyNow()
        let accepted = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let batch = refs.indices.map { i in
                        (refs[(i + task * 5) % refs.count], UserID(UInt64((i + task) % 6)))
                    }
                    return scheduler.attempt(batch[...], at: now).filter(\.isAccepted).count
                }
            }
            return await group.reduce(0, +)
        }
        let active = scheduler.allBookings.filter { $0.status == .active }
        #expect(active.count == accepted)
        #expect(Set(active.map(\.slot)).count == active.count, "one booking per slot")
        for user in 0..<6 {
            #expect(active.filter { $0.user == UserID(UInt64(user)) }.count <= limit, "user \(user)")
        }
        #expect(accepted == refs.count, "6 users × limit 4 cover all 24 slots")
    }

    /// 32 tasks reserve different slots for the same user at once: exactly `limit` are accepted.
    @Test func sameUserNeverExceedsLimit() async throws {
        let limit = 5
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: limit), shards: 8)
        let slots = try Self.contested()
        let now = try Fixture.earlyNow()
        let outcomes = await withTaskGroup(of: Rejection.Reason?.self) { group in
            for task in 0..<Self.taskCount {
                group.addTask {
                    let request = ReservationRequest(slot: slots[task % slots.count], user: 42)
                    return refusal { try scheduler.reserve(request, at: now) }?.reason
                }
            }
            var outcomes: [Rejection.Reason?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let acceptedCount = outcomes.filter { $0 == nil }.count
        #expect(acceptedCount == limit)
        let refusals = outcomes.compactMap { $0 }
        // Slots repeat after 24 tasks, so a few refusals may be for a slot the same user already took.
        #expect(refusals.allSatisfy { $0 == .userLimitReached || $0 == .slotTaken })
        #expect(scheduler.bookings(of: 42, at: now).upcoming.count == limit)
        #expect(scheduler.allBookings.filter { $0.status == .active }.count == limit)
    }

    /// Owners cancel while others try to rebook the same slots: never two active bookings on a slot, and
    /// every slot freed by a cancel can end up booked again.
    @Test func concurrentCancelsAndRebooks() async throws {
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 100), shards: 4)
        let slots = try Self.contested()
        let now = try Fixture.earlyNow()
        var first: [Booking] = []
        for (i, slot) in slots.enumerated() {
            first.append(
                try scheduler.reserve(ReservationRequest(slot: slot, user: UserID(UInt64(1_000 + i))), at: now))
        }
        let owners = first
        await withTaskGroup(of: Void.self) { group in
            for booking in owners {
                group.addTask { _ = try? scheduler.cancel(booking.id, by: booking.user, at: now) }
            }
            for task in 0..<Self.taskCount {
                group.addTask {
                    for round in 0..<3 {
                        for slot in slots {
                            let user = UserID(UInt64(task * 10 + round + 1))
                            _ = try? scheduler.reserve(ReservationRequest(slot: slot, user: user), at: now)
                        }
                    }
                }
            }
        }
        #expect(owners.allSatisfy { scheduler.booking($0.id)?.status == .cancelled })
        // A cancel that ran after every rebooking task had passed its slot left the slot free:
        // that depends on the schedule, so book what is still free once more, in order.
        let rebooked = Set(Self.activeBySlot(scheduler).keys)
        for slot in slots where !rebooked.contains(slot) {
            _ = try scheduler.reserve(ReservationRequest(slot: slot, user: 999), at: now)
        }
        let bySlot = Self.activeBySlot(scheduler)
        for slot in slots { #expect(bySlot[slot]?.count == 1, "slot \(slot)") }
        // Every booking made after the cancels took a slot whose previous holder was cancelled first.
        #expect(scheduler.allBookings.count == 2 * slots.count)
    }

    /// A closure races with reservations on the same date: afterwards no active booking sits in a closed hour,
    /// and every booking in those hours is reported displaced.
    @Test func closureWhileReserving() async throws {
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 100), shards: 4)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let open = HourSet(8..<12)
        let change = AvailabilityChange.setHours(open, "LON", socket: nil, on: day)
        let displaced = await withTaskGroup(of: [Booking].self) { group in
            for task in 0..<Self.taskCount {
                group.addTask {
                    for hour in 0..<24 {
                        for socket: SocketID in ["1", "2", "3"] {
                            let slot = Fixture.slot("LON", socket, day, (hour + task) % 24)
                            _ = try? scheduler.reserve(
                                ReservationRequest(slot: slot, user: UserID(UInt64(task + 1))), at: now)
                        }
                    }
                    return []
                }
            }
            group.addTask { (try? scheduler.changeAvailability(change, onBookings: .displace, at: now)) ?? [] }
            var all: [Booking] = []
            for await part in group { all += part }
            return all
        }
        let bookings = scheduler.allBookings.filter { $0.slot.station == "LON" && $0.slot.date == day }
        for booking in bookings where booking.status == .active {
            #expect(open.contains(booking.slot.hour), "active booking \(booking.slot) in a closed hour")
        }
        let displacedIDs = Set(displaced.map(\.id))
        for booking in bookings where booking.status == .displaced {
            #expect(displacedIDs.contains(booking.id))
            #expect(!open.contains(booking.slot.hour))
        }
        #expect(displaced.allSatisfy { $0.status == .displaced })
        let bySlot = Self.activeBySlot(scheduler)
        #expect(bySlot.values.allSatisfy { $0.count == 1 })
        let view = try scheduler.dayView(of: "LON", on: day, at: now)
        for socket in view.sockets {
            for hour in 0..<24 where !open.contains(hour) { #expect(socket.hours[hour] == .outsideHours) }
        }
    }

    /// Concurrent commands still leave a journal that replays to the same state.
    @Test func journalReplaysAfterConcurrency() async throws {
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 3), shards: 4)
        let slots = try Self.contested()
        let now = try Fixture.earlyNow()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<Self.taskCount {
                group.addTask {
                    for i in 0..<slots.count {
                        let user = UserID(UInt64(task % 8 + 1))
                        if let booking = try? scheduler.reserve(
                            ReservationRequest(slot: slots[(i * 7 + task) % slots.count], user: user), at: now),
                            i % 3 == 0
                        {
                            _ = try? scheduler.cancel(booking.id, by: user, at: now)
                        }
                    }
                }
            }
        }
        let replayed = try Scheduler(rules: scheduler.rules, shards: 4, replaying: scheduler.events)
        #expect(replayed.snapshot() == scheduler.snapshot())
        for user in 1...8 { #expect(scheduler.bookings(of: UserID(UInt64(user)), at: now).upcoming.count <= 3) }
    }
}
