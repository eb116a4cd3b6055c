#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// What one lifecycle command gave, in the ledger's booking ids.
enum LifecycleOutcome: Equatable, CustomStringConvertible {
    case booking(Booking)
    case reservation(Booking, isReplay: Bool)
    case hold(Hold)
    case refused(Rejection)

    var description: String {
        switch self {
        case .booking(let b): "booked \(b.id) \(b.slot) user \(b.user) \(b.status.rawValue)"
        case .reservation(let b, let replay): "reservation \(b.id) \(b.slot) user \(b.user) replay \(replay)"
        case .hold(let h): "hold \(h.slot) user \(h.user) until \(h.expiresAt)"
        case .refused(let r): "refused \(r.reason.rawValue): \(r)"
        }
    }
}

/// What an agreement test keeps while it runs one script on a store and on a reference (a
/// `Ledger` or `Scheduler`): the store's booking ids paired with the reference's, the reference's
/// bookings in order of creation, and each call's answer as a ``LifecycleOutcome`` (store ids
/// shown as the reference's). A class, so the store call a ``stored(_:)`` body makes can
/// ``learn(_:_:)`` its booking.
final class AgreementLog {
    var ids = IDMap()
    var made: [BookingID] = []

    /// The reference's answer.
    static func outcome(_ body: () throws -> LifecycleOutcome) -> LifecycleOutcome {
        do { return try body() } catch let r as Rejection { return .refused(r) } catch {
            return .refused(Rejection(.unknownBooking))
        }
    }

    /// The store's answer; its refusals in the reference's ids.
    func stored(_ body: () async throws -> LifecycleOutcome) async throws -> LifecycleOutcome {
        do { return try await body() } catch let r as Rejection { return .refused(ids.ledgerView(r)) }
    }

    /// Pairs a booking the store made with the one the reference made (`expected`), and returns
    /// it in the reference's ids.
    func learn(_ storeBooking: Booking, _ expected: LifecycleOutcome) -> Booking {
        switch expected {
        case .booking(let mine), .reservation(let mine, _):
            if ids.toLedger[storeBooking.id] == nil { ids.learn(store: storeBooking.id, ledger: mine.id) }
            if !made.contains(mine.id) { made.append(mine.id) }
        default: break
        }
        return ids.ledgerView(storeBooking)
    }
}

/// Four CCS sockets (catalog order 1, 2, 3, 4; 3 is 22 kW) and a Type 2 one: any-socket requests
/// have several candidates.
enum LifecycleFixture {
    static let stations: [Station] = [
        Station(
            id: "hub", name: "Hub", city: "York", timeZone: Fixture.london,
            sockets: [
                Socket(id: "1", connector: .ccs, powerKW: 150), Socket(id: "2", connector: .ccs, powerKW: 150),
                Socket(id: "3", connector: .ccs, powerKW: 22), Socket(id: "4", connector: .ccs, powerKW: 50),
                Socket(id: "5", connector: .type2, powerKW: 22),
            ], openingHours: HourSet(6..<22))
    ]
    static let policy = Policy(
        maxUpcomingBookings: 2, horizon: .rollingDays(30), minimumNotice: .seconds(3_600),
        cancellationCutoff: .seconds(7_200), hold: .seconds(600), maxHoldsPerUser: 1)

    static func slot(_ socket: SocketID, hour: Int, date: LocalDate = Fixture.day) -> Slot {
        Slot(station: "hub", socket: socket, date: date, hour: hour)
    }
}

@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct LifecycleTests {
    let now = Fixture.now

    func store(_ tag: String) async throws -> PostgresBookingService {
        try await TestDatabase.store(
            schema: TestDatabase.freshSchema(tag), stations: LifecycleFixture.stations, policy: LifecycleFixture.policy)
    }

    func reason(_ body: () async throws -> some Any) async -> Rejection.Reason? {
        do {
            _ = try await body()
            return nil
        } catch let rejection as Rejection { return rejection.reason } catch {
            Issue.record("not a refusal: \(error)")
            return nil
        }
    }

    /// Hold, the refusals it causes, confirm, repeat, expiry and release, decided by `now`.
    @Test func holdThenConfirmWithTheSchedulersReasons() async throws {
        let store = try await store("hold")
        let slot = LifecycleFixture.slot("1", hour: 10)
        let hold = try await store.hold(slot, for: 1, reminder: .seconds(900), at: now)
        #expect(hold.expiresAt == now + .seconds(600) && hold.reminderOffsetSeconds == 900)
        #expect(try await store.holds(at: now) == [hold])
        #expect(try await store.holds(at: now + .seconds(600)) == [])
        // Others (and the holder) cannot book or hold it while it lives.
        #expect(await reason { try await store.reserve(ReservationRequest(slot: slot, user: 2), at: now) } == .slotHeld)
        #expect(await reason { try await store.reserve(ReservationRequest(slot: slot, user: 1), at: now) } == .slotHeld)
        #expect(await reason { try await store.hold(slot, for: 2, reminder: nil, at: now) } == .slotHeld)
        let view = try await store.dayView(of: "hub", on: Fixture.day, at: now)
        #expect(view.sockets[0].hours[10] == .held)
        // One hold at a time per user; other users' holds are separate.
        #expect(
            await reason {
                try await store.hold(LifecycleFixture.slot("2", hour: 10), for: 1, reminder: nil, at: now)
            } == .holdLimitReached)
        #expect(await reason { try await store.confirm(slot, by: 2, at: now) } == .unknownHold)
        let booking = try await store.confirm(slot, by: 1, at: now + .seconds(599))
        #expect(booking.slot == slot && booking.user == 1 && booking.reminderOffsetSeconds == 900)
        #expect(try await store.confirm(slot, by: 1, at: now + .seconds(700)) == booking)
        #expect(try await store.holds(at: now) == [])
        #expect(await reason { try await store.releaseHold(slot, by: 1, at: now) } == .unknownHold)

        // Expiry by `now`: a confirm at expiresAt is refused; the slot is free to others.
        let other = LifecycleFixture.slot("2", hour: 11)
        let second = try await store.hold(other, for: 3, reminder: nil, at: now)
        do {
            _ = try await store.confirm(other, by: 3, at: second.expiresAt)
            Issue.record("a confirm at the expiry was accepted")
        } catch let rejection as Rejection {
            #expect(rejection.reason == .holdExpired && rejection.instant == second.expiresAt)
        }
        let taken = try await store.reserve(ReservationRequest(slot: other, user: 4), at: second.expiresAt)
        // Taken over: even a confirm with an earlier clock is refused (the hold is no longer current).
        #expect(await reason { try await store.confirm(other, by: 3, at: now + .seconds(1)) } == .holdExpired)
        _ = try await store.cancel(taken.id, by: 4, at: second.expiresAt)

        // Release frees at once.
        let third = LifecycleFixture.slot("4", hour: 12)
        _ = try await store.hold(third, for: 5, reminder: nil, at: now)
        #expect(try await store.releaseHold(third, by: 5, at: now + .seconds(5)).slot == third)
        #expect(await reason { try await store.releaseHold(third, by: 5, at: now + .seconds(6)) } == .unknownHold)
        _ = try await store.reserve(ReservationRequest(slot: third, user: 6), at: now + .seconds(6))
        await store.shutdown()
    }

    /// A live hold counts against the limit (2): a hold and a booking leave no room for a third.
    @Test func liveHoldsCountAgainstTheLimit() async throws {
        let store = try await store("holdlimit")
        _ = try await store.reserve(ReservationRequest(slot: LifecycleFixture.slot("1", hour: 9), user: 1), at: now)
        _ = try await store.hold(LifecycleFixture.slot("1", hour: 10), for: 1, reminder: nil, at: now)
        let third = ReservationRequest(slot: LifecycleFixture.slot("1", hour: 11), user: 1)
        #expect(await reason { try await store.reserve(third, at: now) } == .userLimitReached)
        // Expired, it no longer counts.
        _ = try await store.reserve(third, at: now + .seconds(600))
        await store.shutdown()
    }

    /// A reservation's repeat after its booking moved is answered with the booking, as the
    /// scheduler answers it: its request id is compared with the slot it asked for (migration 13;
    /// before it, `conflictingRequestID`, found by `schedule-sim run --target --check rules`).
    @Test func aReservationRepeatedAfterAMoveReturnsTheBooking() async throws {
        let store = try await store("repeat_after_move")
        let scheduler = Scheduler(rules: store.rules)
        let first = ReservationRequest(slot: LifecycleFixture.slot("1", hour: 9), user: 1, requestID: "r1")
        let target = LifecycleFixture.slot("1", hour: 11)
        for service in [store, scheduler] as [any BookingService] {
            let made = try await service.reserve(first, at: now)
            _ = try await service.reschedule(RescheduleRequest(booking: made.id, user: 1, to: target), at: now)
            let repeated = try await service.reserve(first, at: now)
            #expect(repeated.id == made.id && repeated.slot == target, "\(type(of: service))")
        }
        // Still a conflict: the same id for another slot than the one it asked for.
        let other = ReservationRequest(slot: LifecycleFixture.slot("2", hour: 11), user: 1, requestID: "r1")
        #expect(await reason { try await store.reserve(other, at: now) } == .conflictingRequestID)
        await store.shutdown()
    }

    /// Reschedule: atomic, not counted twice, request id replay, the scheduler's refusals.
    @Test func rescheduleMovesInOneStep() async throws {
        let store = try await store("move")
        let a = try await store.reserve(
            ReservationRequest(slot: LifecycleFixture.slot("1", hour: 9), user: 1, reminder: .seconds(600)), at: now)
        _ = try await store.reserve(ReservationRequest(slot: LifecycleFixture.slot("1", hour: 10), user: 1), at: now)
        // At the limit (2), the move still fits: the booking is counted once.
        let target = LifecycleFixture.slot("2", hour: 14)
        let request = RescheduleRequest(booking: a.id, user: 1, to: target, requestID: "mv")
        let moved = try await store.reschedule(request, at: now)
        #expect(!moved.isReplay && moved.booking.id == a.id && moved.booking.slot == target)
        #expect(moved.booking.reminderOffsetSeconds == 600 && moved.booking.createdAt == a.createdAt)
        #expect(try await store.booking(a.id)?.slot == target)
        // The old slot is free, the new one taken.
        _ = try await store.reserve(ReservationRequest(slot: LifecycleFixture.slot("1", hour: 9), user: 2), at: now)
        #expect(
            await reason { try await store.reserve(ReservationRequest(slot: target, user: 2), at: now) } == .slotTaken)
        // A repeat is a replay; the id for another slot conflicts.
        let replay = try await store.reschedule(request, at: now + .seconds(60))
        #expect(replay.isReplay && replay.booking.slot == target)
        let conflicting = RescheduleRequest(
            booking: a.id, user: 1, to: LifecycleFixture.slot("2", hour: 15), requestID: "mv")
        #expect(await reason { try await store.reschedule(conflicting, at: now) } == .conflictingRequestID)
        // Not the owner; an unknown booking; a held slot; a taken slot.
        let byOther = RescheduleRequest(booking: a.id, user: 2, to: LifecycleFixture.slot("2", hour: 16))
        #expect(await reason { try await store.reschedule(byOther, at: now) } == .notOwner)
        let unknown = RescheduleRequest(booking: BookingID(999_999), user: 1, to: target)
        #expect(await reason { try await store.reschedule(unknown, at: now) } == .unknownBooking)
        _ = try await store.hold(LifecycleFixture.slot("3", hour: 16), for: 3, reminder: nil, at: now)
        let toHeld = RescheduleRequest(booking: a.id, user: 1, to: LifecycleFixture.slot("3", hour: 16))
        #expect(await reason { try await store.reschedule(toHeld, at: now) } == .slotHeld)
        let toTaken = RescheduleRequest(booking: a.id, user: 1, to: LifecycleFixture.slot("1", hour: 9))
        #expect(await reason { try await store.reschedule(toTaken, at: now) } == .slotTaken)
        // A later move to the hold's slot once it expired takes it over.
        let late = try await store.reschedule(toHeld, at: now + .seconds(600))
        #expect(late.booking.slot == LifecycleFixture.slot("3", hour: 16))
        #expect(await reason { try await store.confirm(toHeld.slot, by: 3, at: now + .seconds(1)) } == .holdExpired)
        await store.shutdown()
    }

    /// Any socket: the lowest-numbered free match in catalog order, then noMatchingSocketFree.
    @Test func anySocketPicksInCatalogOrder() async throws {
        let store = try await store("any")
        let ask = { (user: UserID) in
            AnySocketRequest(
                station: "hub", connector: .ccs, minimumPowerKW: 50, date: Fixture.day, hour: 12, user: user)
        }
        _ = try await store.hold(LifecycleFixture.slot("1", hour: 12), for: 9, reminder: nil, at: now)
        #expect(try await store.reserve(ask(1), at: now).slot.socket == "2")
        #expect(try await store.reserve(ask(2), at: now).slot.socket == "4")  // 3 is 22 kW
        #expect(await reason { try await store.reserve(ask(3), at: now) } == .noMatchingSocketFree)
        // The hold expired: socket 1 is free again.
        #expect(try await store.reserve(ask(3), at: now + .seconds(600)).slot.socket == "1")
        var withID = ask(4)
        withID.hour = 13
        withID.requestID = "any-1"
        let first = try await store.book(withID, at: now)
        let again = try await store.book(withID, at: now)
        #expect(again.isReplay && again.booking.id == first.booking.id)
        await store.shutdown()
    }

    /// The same seeded sequence of holds, confirms, releases, reservations, any-socket bookings,
    /// reschedules and cancels on the in-memory ledger and on PostgreSQL gives the same results,
    /// refusal for refusal, and the same final bookings and holds.
    @Test func agreesWithLedger() async throws {
        var policy = LifecycleFixture.policy
        policy.maxUpcomingBookings = 4
        let store = try await TestDatabase.store(
            schema: TestDatabase.freshSchema("lifeagree"), stations: LifecycleFixture.stations, policy: policy)
        let rules = try Rules(catalog: try Catalog(LifecycleFixture.stations), policy: policy)
        var ledger = Ledger(rules: rules)
        let log = AgreementLog()
        var random = Seeded(state: 77)
        var now = Fixture.now
        var reasons = Set<Rejection.Reason>()
        let sockets: [SocketID] = ["1", "2", "3", "4", "5"]
        for step in 0..<400 {
            now = now + .seconds(Int64.random(in: 0...240, using: &random))
            let user = UserID(UInt64(Int.random(in: 1...6, using: &random)))
            let slot = LifecycleFixture.slot(
                sockets.randomElement(using: &random) ?? "1", hour: Int.random(in: 8...9, using: &random),
                date: Int.random(in: 0..<4, using: &random) > 0 ? Fixture.day : Fixture.day.adding(days: 1))
            let roll = Int.random(in: 0..<100, using: &random)
            let expected: LifecycleOutcome
            let actual: LifecycleOutcome
            switch roll {
            case 0..<25:
                expected = AgreementLog.outcome { .hold(try ledger.hold(slot, for: user, at: now)) }
                actual = try await log.stored { .hold(try await store.hold(slot, for: user, reminder: nil, at: now)) }
            case 25..<45:
                // Confirm the user's most recent hold, if any.
                let target = ledger.holds(at: now).first { $0.user == user }?.slot ?? slot
                expected = AgreementLog.outcome { .booking(try ledger.confirm(target, by: user, at: now)) }
                actual = try await log.stored {
                    .booking(log.learn(try await store.confirm(target, by: user, at: now), expected))
                }
            case 45..<52:
                let target = ledger.holds(at: now).first { $0.user == user }?.slot ?? slot
                expected = AgreementLog.outcome { .hold(try ledger.releaseHold(target, by: user, at: now)) }
                actual = try await log.stored { .hold(try await store.releaseHold(target, by: user, at: now)) }
            case 52..<65:
                let request = ReservationRequest(slot: slot, user: user)
                expected = AgreementLog.outcome { .booking(try ledger.reserve(request, at: now)) }
                actual = try await log.stored {
                    .booking(log.learn(try await store.reserve(request, at: now), expected))
                }
            case 65..<75:
                let request = AnySocketRequest(
                    station: "hub", connector: .ccs, minimumPowerKW: roll % 2 == 0 ? 50 : 0, date: slot.date,
                    hour: slot.hour, user: user, requestID: roll % 3 == 0 ? RequestID("a\(roll % 4)") : nil)
                expected = AgreementLog.outcome {
                    let r = try ledger.book(request, at: now)
                    return .reservation(r.booking, isReplay: r.isReplay)
                }
                actual = try await log.stored {
                    let r = try await store.book(request, at: now)
                    return .reservation(log.learn(r.booking, expected), isReplay: r.isReplay)
                }
            case 75..<90:
                let ledgerID = log.made.isEmpty ? BookingID(999_999) : log.made[step % log.made.count]
                let owner = ledger.booking(ledgerID)?.user ?? user
                let by = roll < 88 ? owner : user
                let request = RescheduleRequest(
                    booking: ledgerID, user: by, to: slot, requestID: roll % 2 == 0 ? RequestID("m\(roll % 5)") : nil)
                var storeRequest = request
                storeRequest.booking = log.ids.toStore[ledgerID] ?? ledgerID
                expected = AgreementLog.outcome {
                    let r = try ledger.reschedule(request, at: now)
                    return .reservation(r.booking, isReplay: r.isReplay)
                }
                actual = try await log.stored {
                    let r = try await store.reschedule(storeRequest, at: now)
                    return .reservation(log.ids.ledgerView(r.booking), isReplay: r.isReplay)
                }
            default:
                let ledgerID = log.made.isEmpty ? BookingID(999_999) : log.made[step % log.made.count]
                let owner = ledger.booking(ledgerID)?.user ?? user
                expected = AgreementLog.outcome { .booking(try ledger.cancel(ledgerID, by: owner, at: now)) }
                actual = try await log.stored {
                    .booking(
                        log.ids.ledgerView(
                            try await store.cancel(log.ids.toStore[ledgerID] ?? ledgerID, by: owner, at: now)))
                }
            }
            if case .refused(let r) = expected { reasons.insert(r.reason) }
            #expect(actual == expected, "step \(step) at \(now): store \(actual), ledger \(expected)")
            if actual != expected { break }
        }
        let lifecycleReasons: Set<Rejection.Reason> = [
            .slotHeld, .holdExpired, .unknownHold, .holdLimitReached, .noMatchingSocketFree, .userLimitReached,
            .slotTaken,
        ]
        #expect(lifecycleReasons.isSubset(of: reasons), "never reached: \(lifecycleReasons.subtracting(reasons))")
        let bookings = try await store.allBookingsByID().map(log.ids.ledgerView).sorted { $0.id < $1.id }
        #expect(bookings == ledger.allBookings)
        #expect(try await store.holds(at: now) == ledger.holds(at: now))
        await store.shutdown()
    }

    /// Many tasks on one slot at once (holds, reservations, confirms, any-socket, moves into it):
    /// on two instances, never a live hold and an active booking of different users; one taker.
    @Test func contendedSlotIsNeverHeldAndBookedByDifferentUsers() async throws {
        // Two instances (two connection pools) on one schema, as two backend processes.
        let schema = TestDatabase.freshSchema("contend")
        let stores = try await TestDatabase.openInstances(
            2, schema: schema, stations: LifecycleFixture.stations, policy: LifecycleFixture.policy)
        let (store, other) = (stores[0], stores[1])
        let slot = LifecycleFixture.slot("1", hour: 15)
        // Users 100... each with a booking elsewhere that they try to move into the slot.
        var movable: [Booking] = []
        for i in 0..<4 {
            movable.append(
                try await store.reserve(
                    ReservationRequest(slot: LifecycleFixture.slot("5", hour: 8 + i), user: UserID(UInt64(100 + i))),
                    at: now))
        }
        for round in 0..<6 {
            let at = now + .seconds(Int64(round) * 700)  // each round's holds have expired by the next
            let movers = movable
            let wins = try await withThrowingTaskGroup(of: Int.self) { group in
                for t in 0..<16 {  // four of each kind; each mover once
                    group.addTask {
                        let user = UserID(UInt64(1_000 + t + round * 100))
                        let service = (t / 4) % 2 == 0 ? store : other  // each kind on both
                        do {
                            switch t % 4 {
                            case 0: _ = try await service.hold(slot, for: user, reminder: nil, at: at)
                            case 1: _ = try await service.reserve(ReservationRequest(slot: slot, user: user), at: at)
                            case 2:
                                let request = AnySocketRequest(
                                    station: "hub", connector: .ccs, minimumPowerKW: 100, date: slot.date,
                                    hour: slot.hour, user: user)
                                let booking = try await service.reserve(request, at: at)
                                return booking.slot == slot ? 1 : 0
                            default:
                                let b = movers[(t / 4) % movers.count]
                                _ = try await service.reschedule(
                                    RescheduleRequest(booking: b.id, user: b.user, to: slot), at: at)
                            }
                            return 1
                        } catch is Rejection { return 0 }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wins == 1, "round \(round): \(wins) takers of one slot")
            let holds = try await store.holds(at: at).filter { $0.slot == slot }
            let active = try await store.allBookingsByID().filter { $0.slot == slot && $0.status == .active }
            #expect(holds.count + active.count == 1, "round \(round): holds \(holds), bookings \(active)")
            // Free the slot for the next round (a booking is cancelled or moved back; a hold expires).
            for booking in active {
                if let index = movable.firstIndex(where: { $0.id == booking.id }) {
                    let back = LifecycleFixture.slot("5", hour: 8 + index)
                    movable[index] = try await store.reschedule(
                        RescheduleRequest(booking: booking.id, user: booking.user, to: back), at: at
                    ).booking
                } else {
                    _ = try await store.cancel(booking.id, by: booking.user, at: at)
                }
            }
        }
        let active = try await store.allBookingsByID().filter { $0.status == .active }
        #expect(invariantViolations(active, rules: store.rules, at: now).isEmpty)
        await store.shutdown()
        await other.shutdown()
    }

    /// Concurrent any-socket requests, on two instances, never share a socket, and every match
    /// fills before refusals.
    @Test func concurrentAnySocketRequestsNeverShare() async throws {
        // Two instances (two connection pools) on one schema, as two backend processes.
        let schema = TestDatabase.freshSchema("anyrace")
        let stores = try await TestDatabase.openInstances(
            2, schema: schema, stations: LifecycleFixture.stations, policy: LifecycleFixture.policy)
        let (first, second) = (stores[0], stores[1])
        for hour in 9..<14 {
            let results = try await withThrowingTaskGroup(of: Slot?.self) { group in
                for t in 0..<12 {
                    group.addTask {
                        let request = AnySocketRequest(
                            station: "hub", connector: .ccs, minimumPowerKW: 50, date: Fixture.day, hour: hour,
                            user: UserID(UInt64(1000 + hour * 100 + t)))
                        let store = t % 2 == 0 ? first : second
                        do { return try await store.reserve(request, at: now).slot } catch let r as Rejection {
                            #expect(r.reason == .noMatchingSocketFree)
                            return nil
                        }
                    }
                }
                return try await group.reduce(into: [Slot]()) { if let slot = $1 { $0.append(slot) } }
            }
            // Sockets 1, 2 and 4 match (3 is 22 kW): all three taken, each once.
            #expect(results.map(\.socket).sorted() == ["1", "2", "4"], "hour \(hour): \(results)")
        }
        await first.shutdown()
        await second.shutdown()
    }

    /// A database at migration 2 with bookings upgrades to 3: the bookings count with holds.
    @Test func bookingsMadeUnderV2KeepTheirRulesWithHolds() async throws {
        let schema = TestDatabase.freshSchema("upgrade3")
        let v2 = try await TestDatabase.store(
            schema: schema, stations: LifecycleFixture.stations, policy: LifecycleFixture.policy,
            migrations: Schema.migrations.filter { $0.version <= 2 })
        let old = try await v2.reserveAsEarlierCode(
            ReservationRequest(slot: LifecycleFixture.slot("1", hour: 9), user: 1, requestID: "old"), at: now)
        await v2.shutdown()
        let v3 = try await TestDatabase.store(
            schema: schema, stations: LifecycleFixture.stations, policy: LifecycleFixture.policy)
        _ = try await v3.hold(LifecycleFixture.slot("1", hour: 10), for: 1, reminder: nil, at: now)
        // The old booking and the hold fill the limit of 2.
        #expect(
            await reason {
                try await v3.reserve(ReservationRequest(slot: LifecycleFixture.slot("1", hour: 11), user: 1), at: now)
            } == .userLimitReached)
        let moved = try await v3.reschedule(
            RescheduleRequest(booking: old, user: 1, to: LifecycleFixture.slot("2", hour: 9)), at: now)
        #expect(moved.booking.id == old)
        #expect(try await v3.confirm(LifecycleFixture.slot("1", hour: 10), by: 1, at: now).user == 1)
        await v3.shutdown()
    }
}
#endif
