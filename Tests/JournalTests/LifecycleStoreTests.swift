import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

/// One seeded script of lifecycle commands (hold, confirm, release, reschedule, any-socket,
/// reserve, cancel), run through ``BookingService`` on any store.
enum LifecycleScript {
    enum Step: Sendable {
        case hold(Slot, UserID)
        case confirm(Slot, UserID)
        case release(Slot, UserID)
        case reserve(Slot, UserID)
        case reserveAny(StationID, UserID)
        case reschedule(booking: Int, to: Int, RequestID)
        case cancel(booking: Int)
    }

    /// `count` steps over one day of three stations, five users; booking operands are indices
    /// into the bookings made so far (resolved when run).
    static func steps(seed: UInt64, count: Int) -> [Step] {
        var rng = SplitMix64(seed: seed)
        var held: [(Slot, UserID)] = []
        return (0..<count).map { _ in
            let user = UserID(UInt64(rng.below(5)))
            let slot = Slot(
                station: StationID("S\(rng.below(3))"), socket: SocketID("\(1 + rng.below(2))"),
                date: JournalFixture.firstDay, hour: 8 + rng.below(6))
            switch rng.below(8) {
            case 0, 1:
                held.append((slot, user))
                return .hold(slot, user)
            case 2:
                guard let pick = held.suffix(3).randomElement(using: &rng) else { return .reserve(slot, user) }
                return .confirm(pick.0, pick.1)
            case 3:
                guard let pick = held.suffix(3).randomElement(using: &rng) else { return .reserve(slot, user) }
                return .release(pick.0, pick.1)
            case 4: return .reserve(slot, user)
            case 5: return .reserveAny(slot.station, user)
            case 6: return .reschedule(booking: rng.below(64), to: rng.below(64), RequestID("m\(rng.below(6))"))
            default: return .cancel(booking: rng.below(64))
            }
        }
    }

    /// The `now` of step `i`: a minute apart, so some holds expire (600 s) before their confirm.
    static func now(_ i: Int) -> Instant { JournalFixture.now + .seconds(Int64(i) * 60) }

    /// What a step gave: a value's description or a refusal's reason.
    static func run(_ step: Step, at i: Int, on store: any BookingService, made: inout [Booking]) async throws
        -> String
    {
        let now = now(i)
        do {
            switch step {
            case .hold(let slot, let user):
                return "held \(try await store.hold(slot, for: user, reminder: nil, at: now))"
            case .confirm(let slot, let user):
                let booking = try await store.confirm(slot, by: user, at: now)
                if !made.contains(where: { $0.id == booking.id }) { made.append(booking) }
                return "confirmed \(booking)"
            case .release(let slot, let user):
                return "released \(try await store.releaseHold(slot, by: user, at: now))"
            case .reserve(let slot, let user):
                let booking = try await store.reserve(ReservationRequest(slot: slot, user: user), at: now)
                made.append(booking)
                return "reserved \(booking)"
            case .reserveAny(let station, let user):
                let request = AnySocketRequest(
                    station: station, connector: .ccs, date: JournalFixture.firstDay, hour: 8 + i % 6, user: user)
                let booking = try await store.reserve(request, at: now)
                made.append(booking)
                return "reservedAny \(booking)"
            case .reschedule(let b, let to, let requestID):
                guard !made.isEmpty else { return "nothing to move" }
                let booking = made[b % made.count]
                let target = made[to % made.count].slot
                let slot = Slot(
                    station: booking.slot.station, socket: target.socket, date: target.date,
                    hour: (target.hour + 1) % 24)
                let moved = try await store.reschedule(
                    RescheduleRequest(booking: booking.id, user: booking.user, to: slot, requestID: requestID), at: now)
                return "moved \(moved)"
            case .cancel(let b):
                guard !made.isEmpty else { return "nothing to cancel" }
                let booking = made[b % made.count]
                return "cancelled \(try await store.cancel(booking.id, by: booking.user, at: now))"
            }
        } catch let rejection as Rejection {
            return "refused \(rejection.reason)"
        }
    }

    /// The state a store shows: every booking and the holds live at `now`.
    /// Everything the store answers about its state at `now`: its bookings, holds, the
    /// reminders due in the next 30 days and each station's earliest free slot.
    static func state(of store: any BookingService, at now: Instant) async throws -> String {
        let reminders = try await store.remindersDue(in: now..<(now + .seconds(86_400 * 30)))
        let free = try await store.earliestFreeSlots(matching: SlotFilter(), at: now)
        return "\(try await store.allBookingsByID()) \(try await store.holds(at: now)) \(reminders) \(free)"
    }
}

@Suite("Journal store: holds, reschedule, any socket")
struct LifecycleStoreTests {
    static let rules: Rules = {
        do {
            return try Rules(
                catalog: try Catalog(JournalFixture.stations),
                policy: Policy(maxUpcomingBookings: 3, hold: .seconds(600), maxHoldsPerUser: 2))
        } catch { preconditionFailure("fixture rules: \(error)") }
    }()
    let rules = Self.rules
    let now = JournalFixture.now

    @Test("a seeded script gives the scheduler's answers and state, before and after a reopen and a checkpoint")
    func agreesWithScheduler() async throws {
        for seed in [UInt64(3), 11, 29] {
            let dir = JournalFixture.temporaryDirectory("lifecycle")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let store = try JournalStore(directory: dir, rules: rules, shards: 4)
            let reference = Scheduler(rules: rules, shards: 4)
            let steps = LifecycleScript.steps(seed: seed, count: 120)
            var (madeByStore, madeByReference) = ([Booking](), [Booking]())
            var outcomes: Set<String> = []
            for (i, step) in steps.enumerated() {
                let got = try await LifecycleScript.run(step, at: i, on: store, made: &madeByStore)
                let expected = try await LifecycleScript.run(step, at: i, on: reference, made: &madeByReference)
                #expect(got == expected, "seed \(seed) step \(i): \(step)")
                outcomes.insert(
                    String(got.prefix { $0 != " " && $0 != "(" })
                        + (got.hasPrefix("refused") ? " " + got.split(separator: " ")[1] : ""))
                if i == 60 { try await store.checkpoint() }
            }
            // Every operation succeeded at least once, and refusals of their own kinds happened.
            let wanted: Set = ["held", "confirmed", "released", "reserved", "reservedAny", "moved", "cancelled"]
            #expect(outcomes.isSuperset(of: wanted), "seed \(seed): \(outcomes.sorted())")
            let end = LifecycleScript.now(steps.count)
            let expected = try await LifecycleScript.state(of: reference, at: end)
            #expect(try await LifecycleScript.state(of: store, at: end) == expected)
            await store.close()
            let reopened = try JournalStore(directory: dir, rules: rules)
            #expect(try await LifecycleScript.state(of: reopened, at: end) == expected, "seed \(seed)")
            // A checkpoint keeps the holds and the reschedule request ids.
            try await reopened.checkpoint()
            await reopened.close()
            let again = try JournalStore(directory: dir, rules: rules)
            #expect(try await LifecycleScript.state(of: again, at: end) == expected, "seed \(seed)")
            #expect(again.statistics.recoveredEvents > 0)
            await again.close()
        }
    }

    /// A snapshot holds a booking that moved into the slot of a later booking cancelled before:
    /// the store must reopen from it (replaying the snapshot as made, in id order, could not).
    @Test("a booking moved into a cancelled booking's slot survives a checkpoint and a reopen")
    func moveIntoACancelledSlotSurvivesACheckpoint() async throws {
        let dir = JournalFixture.temporaryDirectory("lifecycle-moved-checkpoint")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 2)
        let first = try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 1), at: now)
        let second = try await store.reserve(ReservationRequest(slot: slot(0, 11), user: 2), at: now)
        _ = try await store.cancel(second.id, by: 2, at: now)
        let request = RescheduleRequest(booking: first.id, user: 1, to: slot(0, 11))
        _ = try await store.reschedule(request, at: now + .seconds(30))
        try await store.checkpoint()
        let bookings = try await store.allBookingsByID()
        await store.close()
        let reopened = try JournalStore(directory: dir, rules: rules)
        #expect(try await reopened.allBookingsByID() == bookings)
        await reopened.close()
    }

    /// A reservation repeated after its booking moved answers with the booking, after a checkpoint
    /// and a reopen too: the snapshot keeps the slot the reservation asked for
    /// (`Snapshot.movedRequests`, its own record in the file).
    @Test("a reservation's repeat after a move survives a checkpoint and a reopen")
    func aRepeatAfterAMoveSurvivesACheckpoint() async throws {
        let dir = JournalFixture.temporaryDirectory("lifecycle-moved-request")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 2)
        let request = ReservationRequest(slot: slot(0, 9), user: 1, requestID: "r-1")
        let made = try await store.reserve(request, at: now)
        _ = try await store.reschedule(RescheduleRequest(booking: made.id, user: 1, to: slot(0, 11)), at: now)
        try await store.checkpoint()
        await store.close()
        let reopened = try JournalStore(directory: dir, rules: rules)
        let repeated = try await reopened.book(request, at: now + .seconds(60))
        #expect(repeated.isReplay && repeated.booking.id == made.id && repeated.booking.slot == slot(0, 11))
        let other = ReservationRequest(slot: slot(0, 11), user: 1, requestID: "r-1")
        await #expect(throws: Rejection.self) { _ = try await reopened.reserve(other, at: now + .seconds(60)) }
        await reopened.close()
    }

    @Test("a hold, a confirm, a release and a reschedule survive a reopen; repeats journal nothing")
    func holdAndRescheduleSurviveReopen() async throws {
        let dir = JournalFixture.temporaryDirectory("lifecycle-reopen")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 2)
        let hold = try await store.hold(slot(0, 9), for: 1, reminder: .seconds(900), at: now)
        #expect(hold.expiresAt == now + .seconds(600))
        _ = try await store.hold(slot(1, 9), for: 2, reminder: nil, at: now)
        let booking = try await store.confirm(slot(1, 9), by: 2, at: now + .seconds(10))
        _ = try await store.hold(slot(2, 9), for: 3, reminder: nil, at: now)
        _ = try await store.releaseHold(slot(2, 9), by: 3, at: now + .seconds(20))
        let request = RescheduleRequest(booking: booking.id, user: 2, to: slot(1, 11), requestID: "move-1")
        let moved = try await store.reschedule(request, at: now + .seconds(30))
        #expect(!moved.isReplay && moved.booking.id == booking.id && moved.booking.slot == slot(1, 11))
        let any = try await store.book(
            AnySocketRequest(station: "S2", connector: .ccs, date: JournalFixture.firstDay, hour: 9, user: 4), at: now)
        #expect(any.booking.slot == slot(2, 9, socket: "2"))
        let records = store.statistics.records
        #expect(records == 7)
        // A repeated confirm and a replayed reschedule change nothing and write nothing.
        #expect(try await store.confirm(slot(1, 9), by: 2, at: now + .seconds(40)).id == booking.id)
        #expect(try await store.reschedule(request, at: now + .seconds(40)).isReplay)
        #expect(store.statistics.records == records)
        await #expect(throws: Rejection.self) {
            try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 5), at: now)
        }
        let bookings = try await store.allBookingsByID()
        await store.close()

        let reopened = try JournalStore(directory: dir, rules: rules)
        #expect(reopened.statistics.recoveredEvents == 7)
        #expect(try await reopened.allBookingsByID() == bookings)
        #expect(try await reopened.holds(at: now) == [hold])
        // The hold still excludes others, and still expires by `now`.
        do {
            _ = try await reopened.reserve(ReservationRequest(slot: slot(0, 9), user: 5), at: now + .seconds(599))
            Issue.record("a held slot was booked by another user after the reopen")
        } catch let rejection as Rejection {
            #expect(rejection.reason == .slotHeld)
        }
        do {
            _ = try await reopened.confirm(slot(0, 9), by: 1, at: now + .seconds(600))
            Issue.record("a confirm at the hold's expiry was accepted after the reopen")
        } catch let rejection as Rejection {
            #expect(rejection.reason == .holdExpired)
        }
        // The reschedule's request id is remembered across the reopen: a repeat is a replay.
        let replay = try await reopened.reschedule(request, at: now + .seconds(50))
        #expect(replay.isReplay && replay.booking.slot == slot(1, 11))
        #expect(try await reopened.booking(booking.id)?.slot == slot(1, 11))
        #expect(try await reopened.dayView(of: "S1", on: JournalFixture.firstDay, at: now).sockets[0].hours[9] == .free)
        await reopened.close()
    }

    @Test("concurrent holds, confirms, moves and any-socket bookings of few slots replay to the same state")
    func concurrentLifecycleReplays() async throws {
        let dir = JournalFixture.temporaryDirectory("lifecycle-concurrent")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 4)
        await withTaskGroup(of: Void.self) { tasks in
            for t in 0..<8 {
                tasks.addTask {
                    var made: [Booking] = []
                    for (i, step) in LifecycleScript.steps(seed: UInt64(100 + t), count: 60).enumerated() {
                        _ = try? await LifecycleScript.run(step, at: i, on: store, made: &made)
                    }
                }
            }
        }
        let end = LifecycleScript.now(60)
        let before = try await LifecycleScript.state(of: store, at: end)
        // No slot is both held (live) and actively booked, at any of the steps' instants.
        let bookings = try await store.allBookingsByID().filter { $0.status == .active }
        for i in 0...60 {
            let held = Set(try await store.holds(at: LifecycleScript.now(i)).map(\.slot))
            #expect(bookings.allSatisfy { !held.contains($0.slot) }, "step \(i)")
        }
        #expect(Set(bookings.map(\.slot)).count == bookings.count)
        await store.close()
        let reopened = try JournalStore(directory: dir, rules: rules)
        #expect(try await LifecycleScript.state(of: reopened, at: end) == before)
        await reopened.close()
    }

    /// The journal of the lifecycle script, its record boundaries and the state after each prefix.
    static func written(seed: UInt64) async throws -> (
        files: [String: [UInt8]], name: String, ends: [Int], states: [String]
    ) {
        let disk = SimulatedDisk()
        let store = try JournalStore(files: disk, rules: rules, shards: 2)
        var made: [Booking] = []
        let end = LifecycleScript.now(200)
        var states = [try await LifecycleScript.state(of: store, at: end)]
        for (i, step) in LifecycleScript.steps(seed: seed, count: 80).enumerated() {
            let records = store.statistics.records
            _ = try await LifecycleScript.run(step, at: i, on: store, made: &made)
            if store.statistics.records > records { states.append(try await LifecycleScript.state(of: store, at: end)) }
        }
        await store.close()
        let name = FileNames.journal(store.statistics.generation)
        let bytes = disk.survivors[name] ?? []
        var ends = [RecordFormat.headerSize]
        while case .record(let r) = RecordFormat.read(bytes, at: ends[ends.count - 1]) {
            ends.append(ends[ends.count - 1] + r.size)
        }
        return (disk.survivors, name, ends, states)
    }

    @Test("a torn tail of hold, confirm, release, reschedule and any-socket records is cut at every byte")
    func tornLifecycleTail() async throws {
        let w = try await Self.written(seed: 5)
        let bytes = w.files[w.name] ?? []
        #expect(w.ends.last == bytes.count && w.ends.count == w.states.count)
        // The last records include every new kind.
        var tags = Set<UInt8>()
        for k in max(0, w.ends.count - 41)..<(w.ends.count - 1) {
            guard case .record(let r) = RecordFormat.read(bytes, at: w.ends[k]) else { continue }
            for event in try RecordFormat.decodeEvents(r) {
                var writer = ByteWriter()
                EventCoding.encode(event, into: &writer)
                tags.insert(writer.bytes[0])
            }
        }
        #expect(
            tags.isSuperset(of: [
                EventCoding.heldTag, EventCoding.holdConfirmedTag, EventCoding.holdReleasedTag,
                EventCoding.rescheduledTag,
            ]), "tags \(tags.sorted())")
        let end = LifecycleScript.now(200)
        for cut in w.ends[max(0, w.ends.count - 41)]..<bytes.count {
            var files = w.files
            files[w.name] = Array(bytes.prefix(cut))
            let whole = w.ends.lastIndex { $0 <= cut } ?? 0
            do {
                let store = try JournalStore(files: SimulatedDisk(files), rules: Self.rules)
                #expect(try await LifecycleScript.state(of: store, at: end) == w.states[whole], "cut at \(cut)")
                #expect(store.statistics.tornBytes == cut - w.ends[whole], "cut at \(cut)")
            } catch {
                Issue.record("cut at \(cut) refused: \(error)")
            }
        }
    }

    @Test(
        "power lost at each I/O call of the lifecycle script: what reopens is the state after every acknowledged step")
    func powerLossDuringLifecycle() async throws {
        let steps = LifecycleScript.steps(seed: 17, count: 40)
        // The states after each prefix of steps, from a plain scheduler.
        let reference = Scheduler(rules: rules, shards: 2)
        var made: [Booking] = []
        let end = LifecycleScript.now(200)
        var states = [try await LifecycleScript.state(of: reference, at: end)]
        for (i, step) in steps.enumerated() {
            _ = try await LifecycleScript.run(step, at: i, on: reference, made: &made)
            states.append(try await LifecycleScript.state(of: reference, at: end))
        }
        var crashes = 0
        for call in stride(from: 1, through: 60, by: 2) {
            let disk = SimulatedDisk(seed: UInt64(call), loss: .prefix)
            let store = try JournalStore(files: disk, rules: rules, shards: 2)
            disk.crash(afterCalls: call)
            var acknowledged = 0
            var made: [Booking] = []
            for (i, step) in steps.enumerated() {
                do { _ = try await LifecycleScript.run(step, at: i, on: store, made: &made) } catch { break }
                acknowledged = i + 1
            }
            if acknowledged < steps.count { crashes += 1 }
            let recovered = try JournalStore(files: SimulatedDisk(disk.survivors), rules: rules)
            let state = try await LifecycleScript.state(of: recovered, at: end)
            // Everything acknowledged survived; at most the one step in flight is also there.
            let candidates = states[acknowledged...min(acknowledged + 1, steps.count)]
            #expect(candidates.contains(state), "crash after \(call) calls, \(acknowledged) steps acknowledged")
        }
        #expect(crashes >= 20)
    }
}
