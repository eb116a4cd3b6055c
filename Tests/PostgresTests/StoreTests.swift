#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler
import SlotSchedulerPostgres
import Testing

@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct StoreTests {
    let now = Fixture.now

    /// Each booking-independent refusal, with the same details as the in-memory scheduler.
    @Test func refusalReasonsMatchTheLedger() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("refuse"))
        var ledger = Ledger(rules: try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy))
        let requests: [(ReservationRequest, Rejection.Reason?)] = [
            (.init(slot: Fixture.slot("west", "1", Fixture.day, hour: 10), user: 1), .unknownStation),
            (.init(slot: Fixture.slot("north", "9", Fixture.day, hour: 10), user: 1), .unknownSocket),
            (.init(slot: Fixture.slot(hour: 24), user: 1), .invalidHour),
            (
                .init(slot: Fixture.slot("south", "A", Fixture.date("2030-03-31"), hour: 1), user: 1),
                .nonexistentLocalTime
            ),
            (.init(slot: Fixture.slot("north", "1", Fixture.date("2030-02-28"), hour: 10), user: 1), .slotInPast),
            (.init(slot: Fixture.slot("north", "1", Fixture.date("2030-03-01"), hour: 8), user: 1), .tooSoon),
            (.init(slot: Fixture.slot("north", "1", Fixture.date("2030-05-01"), hour: 10), user: 1), .beyondHorizon),
            (.init(slot: Fixture.slot(hour: 23), user: 1), .outsideOpeningHours),
            (.init(slot: Fixture.slot(hour: 10), user: 1, reminder: .seconds(-1)), .invalidReminder),
            (
                .init(
                    slot: Fixture.slot("north", "1", Fixture.date("2030-03-01"), hour: 12), user: 1,
                    reminder: .seconds(86_400)),
                .reminderInPast
            ),
            (.init(slot: Fixture.slot(hour: 10), user: 1, requestID: "a"), nil),
            (.init(slot: Fixture.slot(hour: 10), user: 2), .slotTaken),
            (.init(slot: Fixture.slot(hour: 11), user: 1, requestID: "a"), .conflictingRequestID),
            (.init(slot: Fixture.slot(hour: 12), user: 99), nil),
            (.init(slot: Fixture.slot(hour: 13), user: 99), .userLimitReached),
        ]
        for (request, reason) in requests {
            let expected = Result { () throws(Rejection) in try ledger.reserve(request, at: now) }
            do {
                let booking = try await store.reserve(request, at: now)
                #expect(reason == nil, "\(request.slot) booked, expected \(String(describing: reason))")
                #expect(booking.slot == request.slot)
                #expect(booking.start == (try expected.get()).start)
            } catch let rejection as Rejection {
                #expect(rejection.reason == reason)
                if case .failure(let theirs) = expected {
                    #expect(rejection == theirs)
                } else {
                    Issue.record("store refused \(rejection), ledger booked")
                }
            }
        }
        _ = try await store.changeAvailability(.close("north", socket: "2", on: Fixture.day), at: now)
        await #expect(
            throws: Rejection(.socketClosed, slot: Fixture.slot("north", "2", Fixture.day, hour: 10), user: 1)
        ) {
            try await store.reserve(.init(slot: Fixture.slot("north", "2", Fixture.day, hour: 10), user: 1), at: now)
        }
        await store.shutdown()
    }

    /// Many tasks on two instances (two connection pools) race for a few slots: every slot is
    /// booked at most once and nobody passes their limit.
    @Test func concurrentReservationsNeverDoubleBook() async throws {
        let schema = TestDatabase.freshSchema("race")
        let stores = try await TestDatabase.openInstances(2, schema: schema)
        let (first, second) = (stores[0], stores[1])
        let now = now
        let accepted = try await withThrowingTaskGroup(of: Booking?.self) { group in
            for task in 0..<240 {
                let store = task % 2 == 0 ? first : second
                group.addTask {
                    let slot = Fixture.slot("south", task % 3 == 0 ? "A" : "B", Fixture.day, hour: 6 + task % 8)
                    let user = UserID(UInt64(1 + task % 10))
                    do { return try await store.reserve(.init(slot: slot, user: user), at: now) } catch is Rejection {
                        return nil
                    }
                }
            }
            var accepted: [Booking] = []
            for try await booking in group { if let booking { accepted.append(booking) } }
            return accepted
        }
        let all = try await first.allBookingsByID()
        #expect(invariantViolations(all, rules: first.rules, at: now).isEmpty)
        #expect(Set(accepted.map(\.slot)).count == accepted.count)
        #expect(all.filter { $0.status == .active }.count == accepted.count)
        // 16 slots, 10 users with limit 3: every slot gets booked by someone.
        #expect(accepted.count == 16)
        await first.shutdown()
        await second.shutdown()
    }

    /// The limit holds when one user races for many free slots from many tasks.
    @Test func concurrentReservationsRespectTheLimit() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("limit"))
        let now = now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for hour in 6..<22 {
                group.addTask {
                    do {
                        _ = try await store.reserve(.init(slot: Fixture.slot(hour: hour), user: 7), at: now)
                        return 1
                    } catch let rejection as Rejection {
                        #expect(rejection.reason == .userLimitReached)
                        return 0
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(count == 3)
        // Ended bookings stop counting: a day later the user may book again.
        let later = Instant.utc(Fixture.day.adding(days: 1), hour: 0)
        _ = try await store.reserve(
            .init(slot: Fixture.slot("north", "1", Fixture.day.adding(days: 2), hour: 9), user: 7), at: later)
        await store.shutdown()
    }

    /// Each cancellation refusal (another user's booking, after the cutoff, already cancelled)
    /// carries the same details as the in-memory scheduler's, the deadline in the station's zone
    /// included, so its message gives the driver's local time.
    @Test func cancelRefusalsMatchTheLedger() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("cancelrefuse"))
        var ledger = Ledger(rules: try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy))
        let request = ReservationRequest(slot: Fixture.slot(hour: 12), user: 5)
        let mine = try ledger.reserve(request, at: now)
        let stored = try await store.reserve(request, at: now)
        let late = Instant.utc(Fixture.day, hour: 11)  // 11:00 in London, after the 10:00 deadline
        var checked: [Rejection.Reason] = []
        for (by, at, thenCancel) in [(UserID(6), now, false), (UserID(5), late, false), (UserID(5), now, true)] {
            if thenCancel {
                _ = try ledger.cancel(mine.id, by: by, at: at)
                _ = try await store.cancel(stored.id, by: by, at: at)
            }
            var expected: Rejection?
            do { _ = try ledger.cancel(mine.id, by: by, at: at) } catch { expected = error }
            var actual: Rejection?
            do { _ = try await store.cancel(stored.id, by: by, at: at) } catch let rejection as Rejection {
                actual = rejection
                actual?.booking = mine.id
            }
            #expect(actual == expected)
            if let expected { checked.append(expected.reason) }
            if expected?.reason == .cancellationCutoffPassed {
                #expect(actual?.timeZone == Fixture.london)
                #expect(actual?.message(in: .english).contains("2030-03-02 10:00 Europe/London") == true)
            }
        }
        #expect(checked == [.notOwner, .cancellationCutoffPassed, .alreadyCancelled])
        await store.shutdown()
    }

    /// The same request id from many tasks makes one booking; every caller gets it back.
    @Test func requestIDsAreIdempotent() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("idem"))
        let now = now
        let request = ReservationRequest(
            slot: Fixture.slot(hour: 15), user: 5, requestID: "once", reminder: .seconds(600))
        let reservations = try await withThrowingTaskGroup(of: Reservation.self) { group in
            for _ in 0..<20 { group.addTask { try await store.book(request, at: now) } }
            return try await group.reduce(into: [Reservation]()) { $0.append($1) }
        }
        let ids = Set(reservations.map(\.booking.id))
        #expect(ids.count == 1)
        #expect(reservations.filter { !$0.isReplay }.count == 1)
        #expect(try await store.allBookingsByID().count == 1)
        var other = request
        other.slot.hour = 16
        await #expect(throws: Rejection.self) { try await store.reserve(other, at: now) }
        let id = try #require(ids.first)
        let cancelled = try await store.cancel(id, by: 5, at: now)
        #expect(cancelled.status == .cancelled)
        // As in the ledger: repeating the request after a cancel returns the cancelled booking.
        let again = try await store.reserve(request, at: now)
        #expect(again.id == id && again.status == .cancelled)
        await store.shutdown()
    }

    /// Request ids are the same only when spelled with the same scalars, as in the core
    /// (IdentifierRule): an NFD id is a new request, not a repeat of the NFC one.
    @Test func requestIDsCompareBySpelling() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("nfc"))
        let nfc = ReservationRequest(slot: Fixture.slot(hour: 17), user: 6, requestID: RequestID("\u{E9}"))
        var nfd = nfc
        nfd.requestID = RequestID("e\u{301}")
        let first = try await store.reserve(nfc, at: now)
        #expect(try await store.reserve(nfc, at: now).id == first.id)
        let refusal = await #expect(throws: Rejection.self) { try await store.reserve(nfd, at: now) }
        #expect(refusal?.reason == .slotTaken)
        // The in-memory scheduler answers the same.
        let scheduler = Scheduler(rules: try Rules(catalog: Catalog(Fixture.stations), policy: Fixture.policy))
        _ = try scheduler.reserve(nfc, at: now)
        let inMemory = #expect(throws: Rejection.self) { try scheduler.reserve(nfd, at: now) }
        #expect(inMemory?.reason == .slotTaken)
        await store.shutdown()
    }

    /// Closing a socket-date displaces its bookings (frees the users' quota), `refuse` changes
    /// nothing, reopening makes the slots bookable again.
    @Test func closingDisplacesBookings() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("close"))
        let a = try await store.reserve(.init(slot: Fixture.slot(hour: 9), user: 99), at: now)
        let b = try await store.reserve(.init(slot: Fixture.slot(hour: 14), user: 2), at: now)
        let keep = try await store.reserve(
            .init(slot: Fixture.slot("north", "2", Fixture.day, hour: 9), user: 3), at: now)
        let narrowing = AvailabilityChange.setHours(HourSet(12..<18), "north", socket: "1", on: Fixture.day)
        await #expect(throws: Rejection(.slotHasBookings, value: narrowing.description, limit: 1)) {
            try await store.changeAvailability(narrowing, onBookings: .refuse, at: now)
        }
        #expect(try await store.booking(a.id)?.status == .active)
        let displaced = try await store.changeAvailability(narrowing, at: now)
        #expect(displaced.map(\.id) == [a.id])
        #expect(displaced.first?.status == .displaced)
        let closing = try await store.changeAvailability(.close("north", socket: nil, on: Fixture.day), at: now)
        #expect(closing.map(\.id) == [b.id, keep.id])
        await #expect(throws: Rejection.self) {
            try await store.reserve(.init(slot: Fixture.slot(hour: 14), user: 2), at: now)
        }
        _ = try await store.changeAvailability(.reopen("north", socket: nil, on: Fixture.day), at: now)
        // User 99 (limit 1) got its quota back when displaced.
        _ = try await store.reserve(.init(slot: Fixture.slot(hour: 10), user: 99), at: now)
        let view = try await store.dayView(of: "north", on: Fixture.day, at: now)
        #expect(view.status(socket: "1", hour: 10) == .booked)
        #expect(view.status(socket: "1", hour: 9) == .free)
        await store.shutdown()
    }

    /// Policy lives in the database: an update by one instance reaches the others.
    @Test func policyUpdatesReachEveryInstance() async throws {
        let schema = TestDatabase.freshSchema("policy")
        let stores = try await TestDatabase.openInstances(2, schema: schema)
        let (first, second) = (stores[0], stores[1])
        var strict = Fixture.policy
        strict.maxUpcomingBookings = 1
        try await first.updatePolicy(strict)
        _ = try await second.reserve(.init(slot: Fixture.slot(hour: 9), user: 1), at: now)
        await #expect(throws: Rejection(.userLimitReached, slot: Fixture.slot(hour: 10), user: 1, limit: 1)) {
            try await second.reserve(.init(slot: Fixture.slot(hour: 10), user: 1), at: now)
        }
        #expect(second.policyVersion == 2)
        // A later instance started with the old policy is refused, naming the field; it may adopt it.
        await #expect {
            _ = try await TestDatabase.store(schema: schema)
        } throws: { error in
            let error = error as? PostgresStoreError
            return error?.kind == .policyMismatch && error?.message.contains("maxUpcomingBookings") == true
        }
        var adopting = try TestDatabase.configuration(schema: schema)
        adopting.policyConflict = .adoptStored
        let third = try await PostgresBookingService(
            configuration: adopting, stations: Fixture.stations, policy: Fixture.policy)
        #expect(third.rules.policy.maxUpcomingBookings == 1)
        await third.shutdown()
        await #expect(throws: PostgresStoreError.self) {
            var other = Fixture.stations
            other[0].sockets.removeLast()
            _ = try await TestDatabase.store(schema: schema, stations: other)
        }
        await first.shutdown()
        await second.shutdown()
    }
}
#endif
