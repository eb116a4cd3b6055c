#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// The lifecycle fixture's station with check-in: 15 minutes early, 10 minutes' grace, and a user
/// with two no-shows in the last day limited to one upcoming booking (their own limit is 3).
enum CheckInFixture {
    static let noShowLimit = Policy.NoShowLimit(noShows: 2, days: 1, limit: 1)
    static let policy = Policy(
        maxUpcomingBookings: 3, horizon: .rollingDays(30), hold: .seconds(600), maxHoldsPerUser: 1,
        earlyCheckIn: .seconds(900), noShowGrace: .seconds(600), noShowLimit: noShowLimit)

    /// The slot of socket `socket` at the UTC hour `hours` hours after `now`'s hour (London is on
    /// UTC in March before the 31st).
    static func slot(_ socket: SocketID, hoursFrom now: Instant, _ hours: Int) -> Slot {
        let start = Instant(secondsSinceEpoch: (now.secondsSinceEpoch / 3_600 + Int64(hours)) * 3_600)
        let day = start.date
        return LifecycleFixture.slot(
            socket, hour: Int((start.secondsSinceEpoch - Instant.utc(day, hour: 0).secondsSinceEpoch) / 3_600),
            date: day)
    }
}

@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct CheckInTests {
    let now = Fixture.now

    func store(_ tag: String, policy: Policy = CheckInFixture.policy) async throws -> PostgresBookingService {
        try await TestDatabase.store(
            schema: TestDatabase.freshSchema(tag), stations: LifecycleFixture.stations, policy: policy)
    }

    /// The check-in window follows the policy the store writes (migration 12): after
    /// `updatePolicy` with 5 minutes early and 2 minutes' grace, the database refuses and accepts
    /// at those bounds; no column of the deployment row is generated (with defaults of its own).
    @Test func theWindowFollowsAnUpdatedPolicy() async throws {
        let store = try await store("checkinpolicy")
        var policy = CheckInFixture.policy
        policy.earlyCheckInSeconds = 300
        policy.noShowGraceSeconds = 120
        try await store.updatePolicy(policy)
        let booking = try await store.reserve(
            ReservationRequest(slot: CheckInFixture.slot("1", hoursFrom: now, 3), user: 1), at: now)
        let early = await refusal { try await store.checkIn(booking.id, by: 1, at: booking.start - .seconds(301)) }
        #expect(early?.reason == .checkInNotOpen)
        let late = await refusal { try await store.checkIn(booking.id, by: 1, at: booking.start + .seconds(120)) }
        #expect(late?.reason == .checkInClosed)
        let inTime = try await store.checkIn(booking.id, by: 1, at: booking.start - .seconds(300))
        #expect(inTime.checkedInAt == booking.start - .seconds(300))
        let generated = try await store.rows(
            """
            SELECT count(*)::integer FROM pg_attribute
            WHERE attrelid = 'deployment'::regclass AND attgenerated <> '' AND NOT attisdropped
            """
        ).first.map { try $0.decode(Int32.self) }
        #expect(generated == 0)
        await store.shutdown()
    }

    /// The window, the repeat, the owner, a cancelled booking, an unknown one, and a move that
    /// clears the check-in; the refusals name the window's bounds as the scheduler does.
    @Test func checkInWithTheSchedulersReasons() async throws {
        let store = try await store("checkin")
        let scheduler = try Scheduler(stations: LifecycleFixture.stations, policy: CheckInFixture.policy)
        let slot = CheckInFixture.slot("1", hoursFrom: now, 3)  // starts at 11:00
        let booking = try await store.reserve(ReservationRequest(slot: slot, user: 1), at: now)
        let mine = try scheduler.reserve(ReservationRequest(slot: slot, user: 1), at: now)
        let opens = booking.start - .seconds(900)
        let closes = booking.start + .seconds(600)

        let early = await refusal { try await store.checkIn(booking.id, by: 1, at: opens - .seconds(1)) }
        #expect(early?.reason == .checkInNotOpen && early?.instant == opens && early?.booking == booking.id)
        var expected = Rejection?.none
        do { _ = try scheduler.checkIn(mine.id, by: 1, accessCode: nil, at: opens - .seconds(1)) } catch {
            expected = error
        }
        expected?.booking = booking.id
        #expect(early == expected)
        #expect(await refusal { try await store.checkIn(booking.id, by: 2, at: opens) }?.reason == .notOwner)
        #expect(
            await refusal { try await store.checkIn(BookingID(999_999), by: 1, at: opens) }?.reason == .unknownBooking)

        let checked = try await store.checkIn(booking.id, by: 1, at: opens)
        #expect(checked.checkedInAt == opens && checked.id == booking.id)
        // A repeat, even after the window closed, returns the first check-in.
        #expect(try await store.checkIn(booking.id, by: 1, at: closes + .seconds(60)) == checked)
        #expect(try await store.booking(booking.id)?.checkedInAt == opens)

        // The last second of the window, then closed.
        let other = try await store.reserve(
            ReservationRequest(slot: CheckInFixture.slot("2", hoursFrom: now, 3), user: 2), at: now)
        let late = await refusal { try await store.checkIn(other.id, by: 2, at: closes) }
        #expect(late?.reason == .checkInClosed && late?.instant == closes)
        let third = try await store.reserve(
            ReservationRequest(slot: CheckInFixture.slot("4", hoursFrom: now, 3), user: 3), at: now)
        #expect(try await store.checkIn(third.id, by: 3, at: closes - .seconds(1)).checkedInAt == closes - .seconds(1))

        // Cancelled: alreadyCancelled. Moved: the check-in is cleared.
        let gone = try await store.reserve(
            ReservationRequest(slot: CheckInFixture.slot("3", hoursFrom: now, 3), user: 4), at: now)
        _ = try await store.cancel(gone.id, by: 4, at: now)
        #expect(await refusal { try await store.checkIn(gone.id, by: 4, at: opens) }?.reason == .alreadyCancelled)
        let moving = try await store.reserve(
            ReservationRequest(slot: CheckInFixture.slot("5", hoursFrom: now, 2), user: 5), at: now)
        _ = try await store.checkIn(moving.id, by: 5, at: moving.start - .seconds(60))
        let moved = try await store.reschedule(
            RescheduleRequest(booking: moving.id, user: 5, to: CheckInFixture.slot("5", hoursFrom: now, 5)),
            at: moving.start - .seconds(30))
        #expect(moved.booking.checkedInAt == nil)
        #expect(try await store.booking(moving.id)?.checkedInAt == nil)

        // The four-way split at the close: 1 fulfilled, 2 a no-show, 4 cancelled.
        let one = try await store.bookings(of: 1, at: closes)
        #expect(one.fulfilled.map(\.id) == [booking.id] && one.upcoming.isEmpty && one.noShow.isEmpty)
        let two = try await store.bookings(of: 2, at: closes)
        #expect(two.noShow.map(\.id) == [other.id] && two.upcoming.isEmpty && two.fulfilled.isEmpty)
        #expect(try await store.bookings(of: 2, at: closes - .seconds(1)).upcoming.map(\.id) == [other.id])
        let four = try await store.bookings(of: 4, at: closes)
        #expect(four.cancelled.map(\.id) == [gone.id] && four.cancelled.first?.status == .cancelled)
        await store.shutdown()
    }

    /// The same seeded script of reservations, check-ins (early, in time, late, by others),
    /// cancels, holds, confirms, moves and any-socket bookings, with time running on so bookings
    /// become no-shows and lower their users' limit, gives the same results on a plain `Scheduler`
    /// and on PostgreSQL, refusal for refusal (the lowered limit included), the same bookings and
    /// the same four-way split of every user's bookings.
    @Test func agreesWithSchedulerOnCheckInsAndNoShows() async throws {
        let store = try await store("checkagree")
        let scheduler = try Scheduler(stations: LifecycleFixture.stations, policy: CheckInFixture.policy)
        let log = AgreementLog()
        var random = Seeded(state: 1616)
        var now = Fixture.now
        var reasons = Set<Rejection.Reason>()
        var loweredRefusals = 0
        let sockets: [SocketID] = ["1", "2", "3", "4", "5"]
        let users: [UserID] = [1, 2, 3, 4]
        for step in 0..<500 {
            now = now + .seconds(Int64.random(in: 0...600, using: &random))
            let user = users.randomElement(using: &random) ?? 1
            let slot = CheckInFixture.slot(
                sockets.randomElement(using: &random) ?? "1", hoursFrom: now, Int.random(in: 0...4, using: &random))
            let roll = Int.random(in: 0..<100, using: &random)
            // A recent booking (check-ins, cancels and moves act on those).
            let recent = log.made.suffix(10)
            let target =
                recent.isEmpty || roll == 69 ? BookingID(999_999) : recent[recent.startIndex + step % recent.count]
            let owner = scheduler.booking(target)?.user ?? user
            let expected: LifecycleOutcome
            let actual: LifecycleOutcome
            switch roll {
            case 0..<40:
                let request = ReservationRequest(slot: slot, user: user)
                expected = AgreementLog.outcome { .booking(try scheduler.reserve(request, at: now)) }
                actual = try await log.stored {
                    .booking(log.learn(try await store.reserve(request, at: now), expected))
                }
            case 40..<70:
                let by = roll < 66 ? owner : user
                let when = now - .seconds(Int64.random(in: 0...1_800, using: &random))
                expected = AgreementLog.outcome { .booking(try scheduler.checkIn(target, by: by, at: when)) }
                actual = try await log.stored {
                    .booking(
                        log.ids.ledgerView(try await store.checkIn(log.ids.toStore[target] ?? target, by: by, at: when))
                    )
                }
            case 70..<76:
                expected = AgreementLog.outcome { .booking(try scheduler.cancel(target, by: owner, at: now)) }
                actual = try await log.stored {
                    .booking(
                        log.ids.ledgerView(
                            try await store.cancel(log.ids.toStore[target] ?? target, by: owner, at: now)))
                }
            case 76..<84:
                expected = AgreementLog.outcome { .hold(try scheduler.hold(slot, for: user, at: now)) }
                actual = try await log.stored { .hold(try await store.hold(slot, for: user, reminder: nil, at: now)) }
            case 84..<90:
                let held = scheduler.holds(at: now).first { $0.user == user }?.slot ?? slot
                expected = AgreementLog.outcome { .booking(try scheduler.confirm(held, by: user, at: now)) }
                actual = try await log.stored {
                    .booking(log.learn(try await store.confirm(held, by: user, at: now), expected))
                }
            case 90..<95:
                let request = RescheduleRequest(booking: target, user: owner, to: slot)
                var storeRequest = request
                storeRequest.booking = log.ids.toStore[target] ?? target
                expected = AgreementLog.outcome {
                    let r = try scheduler.reschedule(request, at: now)
                    return .reservation(r.booking, isReplay: r.isReplay)
                }
                actual = try await log.stored {
                    let r = try await store.reschedule(storeRequest, at: now)
                    return .reservation(log.ids.ledgerView(r.booking), isReplay: r.isReplay)
                }
            default:
                let request = AnySocketRequest(
                    station: "hub", connector: .ccs, minimumPowerKW: 0, date: slot.date, hour: slot.hour, user: user)
                expected = AgreementLog.outcome {
                    let r = try scheduler.book(request, at: now)
                    return .reservation(r.booking, isReplay: r.isReplay)
                }
                actual = try await log.stored {
                    let r = try await store.book(request, at: now)
                    return .reservation(log.learn(r.booking, expected), isReplay: r.isReplay)
                }
            }
            if case .refused(let r) = expected {
                reasons.insert(r.reason)
                if r.reason == .userLimitReached, r.limit == CheckInFixture.noShowLimit.limit { loweredRefusals += 1 }
            }
            #expect(actual == expected, "step \(step) at \(now): store \(actual), scheduler \(expected)")
            if actual != expected { break }
            if step % 25 == 0 {
                let mine = try await store.bookings(of: user, at: now)
                let theirs = scheduler.bookings(of: user, at: now)
                #expect(mine.upcoming.map(log.ids.ledgerView) == theirs.upcoming, "step \(step) upcoming")
                #expect(mine.fulfilled.map(log.ids.ledgerView) == theirs.fulfilled, "step \(step) fulfilled")
                #expect(mine.noShow.map(log.ids.ledgerView) == theirs.noShow, "step \(step) noShow")
            }
        }
        let checkInReasons: Set<Rejection.Reason> = [
            .checkInNotOpen, .checkInClosed, .notOwner, .alreadyCancelled, .unknownBooking, .userLimitReached,
        ]
        #expect(checkInReasons.isSubset(of: reasons), "never reached: \(checkInReasons.subtracting(reasons))")
        #expect(loweredRefusals > 0, "the no-show limit never refused")
        let bookings = try await store.allBookingsByID().map(log.ids.ledgerView)
        let theirs = scheduler.allBookings
        #expect(bookings.sorted { $0.id < $1.id } == theirs.sorted { $0.id < $1.id })
        #expect(bookings.contains { $0.checkedInAt != nil })
        for user in users {
            let mine = try await store.bookings(of: user, at: now)
            let theirs = scheduler.bookings(of: user, at: now)
            #expect(mine.upcoming.map(log.ids.ledgerView) == theirs.upcoming)
            #expect(mine.fulfilled.map(log.ids.ledgerView) == theirs.fulfilled)
            #expect(mine.noShow.map(log.ids.ledgerView) == theirs.noShow)
            #expect(mine.cancelled.map(log.ids.ledgerView) == theirs.cancelled)
            #expect(mine.past.map(log.ids.ledgerView) == theirs.past)
        }
        await store.shutdown()
    }

    /// A user with two no-shows (limit lowered to 1, their own is 3) sends 12 reservations, holds
    /// and any-socket bookings for different slots at once, on two instances: exactly one passes,
    /// and every refusal names the lowered limit. Once the no-shows leave the day's window, the
    /// same burst fills their own limit exactly.
    @Test func concurrentReservationsNeverPassTheNoShowLimit() async throws {
        let schema = TestDatabase.freshSchema("noshowrace")
        let stores = try await TestDatabase.openInstances(
            2, schema: schema, stations: LifecycleFixture.stations, policy: CheckInFixture.policy)
        let (first, second) = (stores[0], stores[1])
        let user: UserID = 7
        var missed: [Booking] = []
        for socket in ["1", "2"] as [SocketID] {
            missed.append(
                try await first.reserve(
                    ReservationRequest(slot: CheckInFixture.slot(socket, hoursFrom: now, 1), user: user), at: now))
        }
        // Both are no-shows from start + 600 s; from the end of their hour they no longer count
        // among the user's upcoming bookings either.
        let later = missed[0].start + .seconds(3_600)
        func burst(at time: Instant) async throws -> (passed: Int, limits: [Int?]) {
            try await withThrowingTaskGroup(of: Rejection?.self) { group in
                for t in 0..<12 {
                    group.addTask {
                        let service = t % 2 == 0 ? first : second
                        // Reservations on socket 1, holds on 2, any-socket on the Type 2 one (5):
                        // each task its own slot, so the limits are the only refusals.
                        let slot = CheckInFixture.slot(["1", "2", "5"][t % 3], hoursFrom: time, 2 + t / 3)
                        do {
                            switch t % 3 {
                            case 0: _ = try await service.reserve(ReservationRequest(slot: slot, user: user), at: time)
                            case 1: _ = try await service.hold(slot, for: user, reminder: nil, at: time)
                            default:
                                let request = AnySocketRequest(
                                    station: "hub", connector: .type2, minimumPowerKW: 0, date: slot.date,
                                    hour: slot.hour, user: user)
                                _ = try await service.reserve(request, at: time)
                            }
                            return nil
                        } catch let r as Rejection { return r }
                    }
                }
                var passed = 0
                var limits: [Int?] = []
                for try await refusal in group {
                    if let refusal {
                        #expect(
                            refusal.reason == .userLimitReached || refusal.reason == .holdLimitReached,
                            "\(refusal)")
                        if refusal.reason == .userLimitReached { limits.append(refusal.limit) }
                    } else {
                        passed += 1
                    }
                }
                return (passed, limits)
            }
        }
        let lowered = try await burst(at: later)
        #expect(lowered.passed == 1, "\(lowered.passed) passed the lowered limit of 1")
        #expect(lowered.limits.allSatisfy { $0 == 1 }, "\(lowered.limits)")
        // A day later the no-shows are out of the window: the user's own limit (3) applies again.
        let dayLater = later + .seconds(86_400 + 3_600)
        let own = try await burst(at: dayLater)
        #expect(own.passed <= 3, "\(own.passed) passed the limit of 3")
        let counted =
            try await first.bookings(of: user, at: dayLater).upcoming.count
            + (try await first.holds(at: dayLater).filter { $0.user == user }.count)
        #expect(counted == 3, "upcoming plus holds \(counted), expected the limit 3")
        await first.shutdown()
        await second.shutdown()
    }

    /// A database at migration 4 with bookings upgrades to 5: old bookings are not checked in,
    /// can be checked in, and count as no-shows; the stored policy's check-in rules apply; every
    /// answer is the scheduler's given the same commands.
    @Test func bookingsMadeUnderV4CheckInAndCountAsNoShows() async throws {
        let schema = TestDatabase.freshSchema("upgrade5")
        let v4 = try await TestDatabase.store(
            schema: schema, stations: LifecycleFixture.stations, policy: CheckInFixture.policy,
            migrations: Schema.migrations.filter { $0.version <= 4 })
        let scheduler = try Scheduler(stations: LifecycleFixture.stations, policy: CheckInFixture.policy)
        var ids = IDMap()
        for (socket, hours, user) in [("1", 1, 1), ("2", 1, 1), ("3", 3, 1), ("4", 3, 2)] as [(SocketID, Int, UserID)] {
            let request = ReservationRequest(
                slot: CheckInFixture.slot(socket, hoursFrom: now, hours), user: user,
                requestID: RequestID("v4-\(socket)"))
            let old = try await v4.reserveAsEarlierCode(request, at: now)
            ids.learn(store: old, ledger: try scheduler.reserve(request, at: now).id)
        }
        await v4.shutdown()

        let v5 = try await TestDatabase.store(
            schema: schema, stations: LifecycleFixture.stations, policy: CheckInFixture.policy)
        let stored = try await v5.allBookingsByID()
        #expect(stored.allSatisfy { $0.checkedInAt == nil } && stored.count == 4)
        // Two hours on: user 1's two bookings at +1h are no-shows, their +3h one is open for check-in.
        let later = now + .seconds(2 * 3_600 + 50 * 60)
        var results: [(String, String)] = []
        func both(_ name: String, _ store: () async throws -> Booking, _ mine: () throws -> Booking) async throws {
            let a: String
            let b: String
            do { a = "\(ids.ledgerView(try await store()))" } catch let r as Rejection {
                a = "refused \(r.reason.rawValue) limit \(r.limit ?? -1): \(ids.ledgerView(r))"
            }
            do { b = "\(try mine())" } catch let r as Rejection {
                b = "refused \(r.reason.rawValue) limit \(r.limit ?? -1): \(r)"
            }
            results.append((a, b))
            #expect(a == b, "\(name): store \(a), scheduler \(b)")
        }
        let extra = ReservationRequest(slot: CheckInFixture.slot("1", hoursFrom: later, 2), user: 1)
        try await both(
            "lowered limit", { try await v5.reserve(extra, at: later) }, { try scheduler.reserve(extra, at: later) })
        for (storeID, ledgerID) in ids.toLedger.sorted(by: { $0.key < $1.key }) {
            let owner = scheduler.booking(ledgerID)?.user ?? 1
            try await both(
                "check-in \(storeID)", { try await v5.checkIn(storeID, by: owner, at: later) },
                { try scheduler.checkIn(ledgerID, by: owner, at: later) })
        }
        #expect(
            results.first?.0.hasPrefix("refused userLimitReached limit 1:") == true,
            "the v4 no-shows did not lower the limit: \(results)")
        for user in [1, 2] as [UserID] {
            let mine = try await v5.bookings(of: user, at: later)
            let theirs = scheduler.bookings(of: user, at: later)
            #expect(mine.noShow.map(ids.ledgerView) == theirs.noShow)
            #expect(mine.fulfilled.map(ids.ledgerView) == theirs.fulfilled)
            #expect(mine.upcoming.map(ids.ledgerView) == theirs.upcoming)
        }
        #expect(try await v5.bookings(of: 1, at: later).noShow.count == 2)
        #expect(try await v5.bookings(of: 1, at: later).fulfilled.count == 1)
        await v5.shutdown()
    }
}
#endif
