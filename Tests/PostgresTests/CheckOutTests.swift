#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// The check-in fixture's station with access codes on two sockets: "2" a plain one, "3" one
/// with a letter that is two bytes in UTF-8.
enum CheckOutFixture {
    static let stations: [Station] = LifecycleFixture.stations.map { station in
        var coded = station
        coded.sockets[1].accessCode = "door-22"
        coded.sockets[2].accessCode = "\u{DC}7"
        return coded
    }
    /// The check-in policy, with user 7 limited to one upcoming booking.
    static let policy: Policy = {
        var policy = CheckInFixture.policy
        policy.userLimits = [.init(user: 7, limit: 1)]
        return policy
    }()
}

/// A PostgreSQL store and an in-memory `Ledger` given the same calls, each answer compared:
/// the same booking (ids mapped) or the same refusal.
struct Twin {
    enum Answer: Equatable, CustomStringConvertible {
        case booking(Booking)
        case refused(Rejection)
        case failed(String)

        var booking: Booking? { if case .booking(let b) = self { b } else { nil } }
        var reason: Rejection.Reason? { if case .refused(let r) = self { r.reason } else { nil } }

        var description: String {
            switch self {
            case .booking(let b):
                "booking \(b.id) \(b.slot) user \(b.user) \(b.status.rawValue) in \(b.checkedInAt.map { "\($0)" } ?? "-") "
                    + "out \(b.checkedOutAt.map { "\($0)" } ?? "-")"
            case .refused(let r): "refused \(r.reason.rawValue): \(r)"
            case .failed(let error): "failed: \(error)"
            }
        }
    }

    let store: PostgresBookingService
    var ledger: Ledger
    var ids = IDMap()

    init(_ tag: String, stations: [Station] = CheckOutFixture.stations, policy: Policy = CheckOutFixture.policy)
        async throws
    {
        store = try await TestDatabase.store(
            schema: TestDatabase.freshSchema(tag), stations: stations, policy: policy)
        ledger = Ledger(rules: try Rules(catalog: try Catalog(stations), policy: policy))
    }

    /// The store's id of ledger booking `id` (an unknown id is the same in both).
    func storeID(_ id: BookingID) -> BookingID { ids.toStore[id] ?? id }

    /// Runs a command on both and expects the same answer; learns the id of a booking made.
    @discardableResult
    mutating func both(
        _ name: String, sourceLocation: SourceLocation = #_sourceLocation,
        store call: (PostgresBookingService) async throws -> Booking, ledger local: (inout Ledger) throws -> Booking
    ) async -> Answer {
        let expected: Answer
        do { expected = .booking(try local(&ledger)) } catch let r as Rejection { expected = .refused(r) } catch {
            expected = .failed("\(error)")
        }
        let actual: Answer
        do {
            let booking = try await call(store)
            if case .booking(let mine) = expected, ids.toLedger[booking.id] == nil {
                ids.learn(store: booking.id, ledger: mine.id)
            }
            actual = .booking(ids.ledgerView(booking))
        } catch let r as Rejection { actual = .refused(ids.ledgerView(r)) } catch { actual = .failed("\(error)") }
        #expect(actual == expected, "\(name): store \(actual), ledger \(expected)", sourceLocation: sourceLocation)
        return actual
    }

    @discardableResult
    mutating func reserve(
        _ slot: Slot, user: UserID, at now: Instant, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Answer {
        let request = ReservationRequest(slot: slot, user: user)
        return await both(
            "reserve \(slot) for \(user)", sourceLocation: sourceLocation,
            store: { try await $0.reserve(request, at: now) }, ledger: { try $0.reserve(request, at: now) })
    }

    @discardableResult
    mutating func checkIn(
        _ id: BookingID, by user: UserID, code: String? = nil, at now: Instant,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Answer {
        let mine = storeID(id)
        return await both(
            "check-in \(id) by \(user) code \(code ?? "nil")", sourceLocation: sourceLocation,
            store: { try await $0.checkIn(mine, by: user, accessCode: code, at: now) },
            ledger: { try $0.checkIn(id, by: user, accessCode: code, at: now) })
    }

    @discardableResult
    mutating func checkOut(
        _ id: BookingID, by user: UserID, at now: Instant, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Answer {
        let mine = storeID(id)
        return await both(
            "check-out \(id) by \(user)", sourceLocation: sourceLocation,
            store: { try await $0.checkOut(mine, by: user, at: now) },
            ledger: { try $0.checkOut(id, by: user, at: now) })
    }

    @discardableResult
    mutating func cancel(
        _ id: BookingID, by user: UserID, at now: Instant, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Answer {
        let mine = storeID(id)
        return await both(
            "cancel \(id) by \(user)", sourceLocation: sourceLocation,
            store: { try await $0.cancel(mine, by: user, at: now) }, ledger: { try $0.cancel(id, by: user, at: now) })
    }

    @discardableResult
    mutating func reschedule(
        _ id: BookingID, by user: UserID, to slot: Slot, at now: Instant,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Answer {
        let (mine, theirs) = (
            RescheduleRequest(booking: storeID(id), user: user, to: slot),
            RescheduleRequest(booking: id, user: user, to: slot)
        )
        return await both(
            "reschedule \(id) by \(user) to \(slot)", sourceLocation: sourceLocation,
            store: { try await $0.reschedule(mine, at: now).booking },
            ledger: { try $0.reschedule(theirs, at: now).booking })
    }

    /// Every booking, the users' lists (whole and a page at a time) and the day views of `dates`
    /// at `now`, as the ledger has them.
    func expectSameState(
        users: [UserID], dates: [LocalDate], at now: Instant, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let stored = try await store.allBookingsByID().map(ids.ledgerView).sorted { $0.id < $1.id }
        #expect(stored == ledger.allBookings, "every booking", sourceLocation: sourceLocation)
        for id in ids.toStore.keys {
            let one = try await store.booking(storeID(id)).map(ids.ledgerView)
            #expect(one == ledger.booking(id), "booking \(id)", sourceLocation: sourceLocation)
        }
        for user in users {
            let mine = try await store.bookings(of: user, at: now)
            let theirs = ledger.bookings(of: user, at: now)
            for list in BookingList.allCases {
                #expect(
                    mine[list].map(ids.ledgerView) == theirs[list], "user \(user) \(list)",
                    sourceLocation: sourceLocation)
                for limit in [1, 2] {
                    var read: [Booking] = []
                    var offset = 0
                    while true {
                        let page = try await store.bookings(
                            of: user, in: list, at: now, page: try PageRequest(offset: offset, limit: limit))
                        read += page.bookings.map(ids.ledgerView)
                        offset += limit
                        guard page.hasMore else { break }
                    }
                    #expect(
                        read == theirs[list], "user \(user) \(list) in pages of \(limit)",
                        sourceLocation: sourceLocation)
                }
            }
            #expect(mine.past.map(ids.ledgerView) == theirs.past, "user \(user) past", sourceLocation: sourceLocation)
        }
        for date in dates {
            let view = try await store.dayView(of: "hub", on: date, at: now)
            #expect(
                view == (try ledger.dayView(of: "hub", on: date, at: now)), "\(date)", sourceLocation: sourceLocation)
        }
    }
}

@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct CheckOutTests {
    let now = Fixture.now  // 08:00 UTC, 08:00 in London

    /// A slot of socket `socket` starting `hours` hours after `now`'s hour.
    func slot(_ socket: SocketID, _ hours: Int) -> Slot { CheckInFixture.slot(socket, hoursFrom: now, hours) }

    /// A check-out before the hour starts frees the slot as a cancel does: another user books it,
    /// and the day view shows it free in between. After the hour started the slot is past.
    @Test func checkOutFreesTheSlot() async throws {
        var twin = try await Twin("checkoutslot")
        let early = try #require(await twin.reserve(slot("1", 1), user: 1, at: now).booking)
        let opens = early.start - .seconds(900)
        #expect(await twin.checkIn(early.id, by: 1, at: opens).booking?.checkedInAt == opens)
        #expect(await twin.reserve(slot("1", 1), user: 2, at: opens).reason == .slotTaken)
        let out = try #require(await twin.checkOut(early.id, by: 1, at: opens + .seconds(60)).booking)
        #expect(out.status == .fulfilled && out.checkedOutAt == opens + .seconds(60) && out.checkedInAt == opens)
        try await twin.expectSameState(users: [1, 2], dates: [early.slot.date], at: opens + .seconds(90))
        let again = try #require(await twin.reserve(slot("1", 1), user: 2, at: opens + .seconds(120)).booking)
        #expect(again.slot == early.slot && again.user == 2 && again.status == .active)

        // Checked out during its hour: freed, but past.
        let late = try #require(await twin.reserve(slot("2", 1), user: 3, at: now).booking)
        await twin.checkIn(late.id, by: 3, code: "door-22", at: late.start + .seconds(60))
        await twin.checkOut(late.id, by: 3, at: late.start + .seconds(1_200))
        #expect(await twin.reserve(slot("2", 1), user: 4, at: late.start + .seconds(1_260)).reason == .slotInPast)
        try await twin.expectSameState(users: [1, 2, 3, 4], dates: [early.slot.date], at: late.start + .seconds(1_300))
        await twin.store.shutdown()
    }

    /// A user limited to one upcoming booking checks the booking out and books the next one; a
    /// checked-in booking not checked out still counts.
    @Test func checkOutFreesTheLimit() async throws {
        var twin = try await Twin("checkoutlimit")
        let first = try #require(await twin.reserve(slot("1", 1), user: 7, at: now).booking)
        let opens = first.start - .seconds(900)
        #expect(await twin.reserve(slot("4", 2), user: 7, at: now).reason == .userLimitReached)
        await twin.checkIn(first.id, by: 7, at: opens)
        #expect(await twin.reserve(slot("4", 2), user: 7, at: opens).reason == .userLimitReached)
        await twin.checkOut(first.id, by: 7, at: opens + .seconds(300))
        let next = try #require(await twin.reserve(slot("4", 2), user: 7, at: opens + .seconds(310)).booking)
        #expect(await twin.reserve(slot("5", 3), user: 7, at: opens + .seconds(320)).reason == .userLimitReached)
        // A hold counts as the limit counts: none is left either.
        let hold = await refusal {
            try await twin.store.hold(slot("5", 3), for: 7, reminder: nil, at: opens + .seconds(330))
        }
        var expected: Rejection?
        do { _ = try twin.ledger.hold(slot("5", 3), for: 7, reminder: nil, at: opens + .seconds(330)) } catch {
            expected = error
        }
        #expect(hold == expected && hold?.reason == .userLimitReached)
        try await twin.expectSameState(users: [7], dates: [first.slot.date, next.slot.date], at: opens + .seconds(340))
        await twin.store.shutdown()
    }

    /// Every refusal of a check-out, and what a fulfilled booking refuses: the reasons, in the
    /// core's order, and the whole refusals, as the ledger gives them.
    @Test func refusalsAsTheLedgerGivesThem() async throws {
        var twin = try await Twin("checkoutrefusals")
        let booking = try #require(await twin.reserve(slot("1", 2), user: 1, at: now).booking)
        let opens = booking.start - .seconds(900)
        #expect(await twin.checkOut(booking.id, by: 1, at: opens).reason == .notCheckedIn)
        #expect(await twin.checkOut(BookingID(999_999), by: 1, at: opens).reason == .unknownBooking)
        await twin.checkIn(booking.id, by: 1, at: opens)
        #expect(await twin.checkOut(booking.id, by: 2, at: opens).reason == .notOwner)
        #expect(await twin.checkOut(booking.id, by: 1, at: opens + .seconds(30)).booking?.status == .fulfilled)
        // Not idempotent: a repeat is refused. The owner is asked first.
        #expect(await twin.checkOut(booking.id, by: 1, at: opens + .seconds(40)).reason == .alreadyCheckedOut)
        #expect(await twin.checkOut(booking.id, by: 2, at: opens + .seconds(40)).reason == .notOwner)
        // A fulfilled booking: cancel, move and check-in refused as checked out.
        #expect(await twin.cancel(booking.id, by: 1, at: opens + .seconds(50)).reason == .alreadyCheckedOut)
        #expect(await twin.cancel(booking.id, by: 2, at: opens + .seconds(50)).reason == .notOwner)
        #expect(
            await twin.reschedule(booking.id, by: 1, to: slot("2", 4), at: opens + .seconds(50)).reason
                == .alreadyCheckedOut)
        #expect(await twin.checkIn(booking.id, by: 1, at: opens + .seconds(60)).reason == .alreadyCheckedOut)
        // Cancelled, then displaced: alreadyCancelled.
        let cancelled = try #require(await twin.reserve(slot("4", 5), user: 1, at: now).booking)
        await twin.cancel(cancelled.id, by: 1, at: now)
        #expect(await twin.checkOut(cancelled.id, by: 1, at: now).reason == .alreadyCancelled)
        let displaced = try #require(await twin.reserve(slot("5", 5), user: 2, at: now).booking)
        let change = AvailabilityChange(
            station: "hub", socket: "5", date: displaced.slot.date, hours: HourSet(6..<7))
        _ = try await twin.store.changeAvailability(change, onBookings: .displace, at: now)
        _ = try twin.ledger.changeAvailability(change, onBookings: .displace, at: now)
        #expect(await twin.checkOut(displaced.id, by: 2, at: now).reason == .alreadyCancelled)
        try await twin.expectSameState(users: [1, 2], dates: [booking.slot.date], at: opens + .seconds(70))
        await twin.store.shutdown()
    }

    /// A socket with a code checks in only with exactly that code (nil, a wrong one, a prefix and
    /// another spelling refused); one without takes any. The code is asked after the owner and
    /// the status and before the repeat and the window, as the core asks.
    @Test func accessCodes() async throws {
        var twin = try await Twin("accesscodes")
        let coded = try #require(await twin.reserve(slot("2", 2), user: 1, at: now).booking)
        let open = try #require(await twin.reserve(slot("1", 2), user: 2, at: now).booking)
        let unicode = try #require(await twin.reserve(slot("3", 2), user: 3, at: now).booking)
        let opens = coded.start - .seconds(900)
        #expect(await twin.checkIn(coded.id, by: 1, code: "door-22", at: opens - .seconds(1)).reason == .checkInNotOpen)
        #expect(await twin.checkIn(coded.id, by: 1, code: "door-2", at: opens - .seconds(1)).reason == .wrongAccessCode)
        #expect(await twin.checkIn(coded.id, by: 2, code: "door-2", at: opens).reason == .notOwner)
        for wrong in [nil, "", "door-2", "door-222", "DOOR-22", " door-22"] as [String?] {
            #expect(await twin.checkIn(coded.id, by: 1, code: wrong, at: opens).reason == .wrongAccessCode)
        }
        #expect(await twin.checkIn(coded.id, by: 1, code: "door-22", at: opens).booking?.checkedInAt == opens)
        // The repeat asks for the code too.
        #expect(await twin.checkIn(coded.id, by: 1, code: "door-2", at: opens + .seconds(5)).reason == .wrongAccessCode)
        #expect(
            await twin.checkIn(coded.id, by: 1, code: "door-22", at: opens + .seconds(5)).booking?.checkedInAt == opens)
        #expect(await twin.checkIn(open.id, by: 2, code: "anything", at: opens).booking?.checkedInAt == opens)
        // "Ü" precomposed is the code; "U" and a combining diaeresis is another spelling.
        #expect(await twin.checkIn(unicode.id, by: 3, code: "U\u{308}7", at: opens).reason == .wrongAccessCode)
        #expect(await twin.checkIn(unicode.id, by: 3, code: "\u{DC}7", at: opens).booking?.checkedInAt == opens)
        // Checked out: the status is asked before the code.
        await twin.checkOut(coded.id, by: 1, at: opens + .seconds(10))
        #expect(await twin.checkIn(coded.id, by: 1, code: nil, at: opens + .seconds(20)).reason == .alreadyCheckedOut)
        try await twin.expectSameState(users: [1, 2, 3], dates: [coded.slot.date], at: opens + .seconds(30))
        await twin.store.shutdown()
    }

    /// A catalog change that gives a socket a code (and takes another's away) is enforced at
    /// once, by the instance that made it and by one that still holds the old catalog.
    @Test func aChangedCodeIsEnforcedByEveryInstance() async throws {
        var twin = try await Twin("accesscodechange")
        let other = try await TestDatabase.store(
            schema: twin.store.configuration.schema, stations: CheckOutFixture.stations, policy: CheckOutFixture.policy)
        let first = try #require(await twin.reserve(slot("1", 2), user: 1, at: now).booking)
        let second = try #require(await twin.reserve(slot("2", 2), user: 2, at: now).booking)
        var stations = CheckOutFixture.stations
        stations[0].sockets[0].accessCode = "new-1"
        stations[0].sockets[1].accessCode = nil
        let change = CatalogChange(stations: stations)
        let mine = try await twin.store.changeCatalog(change, at: now)
        let theirs = try twin.ledger.changeCatalog(change, at: now)
        #expect(mine.revision == theirs.revision && mine.displaced.isEmpty && theirs.displaced.isEmpty)
        let opens = first.start - .seconds(900)
        // The other instance, on its old catalog, learns the code from the database.
        var expected: Rejection?
        do { _ = try twin.ledger.checkIn(first.id, by: 1, at: opens) } catch { expected = error }
        let refused = await refusal { try await other.checkIn(twin.storeID(first.id), by: 1, at: opens) }
        #expect(refused.map(twin.ids.ledgerView) == expected && expected?.reason == .wrongAccessCode)
        let checked = try await other.checkIn(twin.storeID(first.id), by: 1, accessCode: "new-1", at: opens)
        #expect(checked.checkedInAt == opens)
        #expect(try twin.ledger.checkIn(first.id, by: 1, accessCode: "new-1", at: opens).checkedInAt == opens)
        #expect(await twin.checkIn(second.id, by: 2, code: nil, at: opens).booking?.checkedInAt == opens)
        try await twin.expectSameState(users: [1, 2], dates: [first.slot.date], at: opens + .seconds(10))
        await other.shutdown()
        await twin.store.shutdown()
    }

    /// The user's lists after check-outs, whole and a page at a time, as the ledger lists them:
    /// upcoming, checked in (fulfilled), checked out (fulfilled), cancelled, displaced, no-shows.
    @Test func listsAfterCheckOut() async throws {
        var policy = CheckOutFixture.policy
        policy.maxUpcomingBookings = 10
        var twin = try await Twin("checkoutlists", policy: policy)
        let user: UserID = 5
        var made: [Booking] = []
        for (socket, hours) in [("1", 1), ("2", 1), ("4", 1), ("1", 2), ("4", 2), ("5", 3), ("1", 4)]
            as [(SocketID, Int)]
        {
            made.append(try #require(await twin.reserve(slot(socket, hours), user: user, at: now).booking))
        }
        let opens = made[0].start - .seconds(900)
        // +1h: one checked in and out, one checked in, one left to be a no-show. +2h: one
        // cancelled. +3h: one displaced.
        await twin.checkIn(made[0].id, by: user, at: opens)
        await twin.checkOut(made[0].id, by: user, at: opens + .seconds(60))
        await twin.checkIn(made[1].id, by: user, code: "door-22", at: opens + .seconds(120))
        await twin.cancel(made[4].id, by: user, at: opens + .seconds(130))
        let change = AvailabilityChange(station: "hub", socket: "5", date: made[5].slot.date, hours: HourSet(6..<7))
        _ = try await twin.store.changeAvailability(change, onBookings: .displace, at: opens + .seconds(140))
        _ = try twin.ledger.changeAvailability(change, onBookings: .displace, at: opens + .seconds(140))
        try await twin.expectSameState(users: [user], dates: [made[0].slot.date], at: opens + .seconds(200))
        // +2h: checked in and out within its hour. +4h: upcoming.
        await twin.checkIn(made[3].id, by: user, at: made[3].start)
        await twin.checkOut(made[3].id, by: user, at: made[3].start + .seconds(1_800))
        for at in [made[3].start + .seconds(3_600), made[6].start + .seconds(7_200)] {
            try await twin.expectSameState(users: [user], dates: [made[0].slot.date], at: at)
        }
        // The ledger's lists are the ones meant: checked in, in session or out; cancelled or displaced.
        let lists = twin.ledger.bookings(of: user, at: made[3].start + .seconds(3_600))
        #expect(lists.fulfilled.map(\.id) == [made[3].id, made[1].id, made[0].id])
        #expect(lists.fulfilled.map(\.status) == [.fulfilled, .active, .fulfilled])
        #expect(lists.cancelled.map(\.id) == [made[5].id, made[4].id])
        #expect(lists.cancelled.map(\.status) == [.displaced, .cancelled])
        #expect(lists.noShow.map(\.id) == [made[2].id] && lists.upcoming.map(\.id) == [made[6].id])
        await twin.store.shutdown()
    }

    /// The paged lists read their indices (migration 14): the fulfilled list both of its parts'
    /// in order, the cancelled list the index of cancelled and displaced bookings.
    @Test func pagedListsUseTheirIndices() async throws {
        let store = try await TestDatabase.store(
            schema: TestDatabase.freshSchema("checkoutplans"), stations: CheckOutFixture.stations,
            policy: CheckOutFixture.policy)
        let indices = try await store.rows(
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'bookings'"
        ).map { try $0.decode(String.self) }
        #expect(Set(indices).isSuperset(of: ["bookings_user_fulfilled", "bookings_user_cancelled"]))
        #expect(!indices.contains("bookings_user_closed"))
        let constraint = try await store.rows(
            """
            SELECT pg_get_constraintdef(oid) FROM pg_constraint
            WHERE conname = 'bookings_status_check' AND conrelid = 'bookings'::regclass
            """
        ).map { try $0.decode(String.self) }
        #expect(constraint.count == 1 && constraint.first?.contains("fulfilled") == true, "\(constraint)")
        await store.shutdown()
    }
}

/// Migration 14 as compiled is its file, split into its statements.
@Suite struct CheckOutMigrationTests {
    @Test func theCompiledMigrationIsItsFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SlotSchedulerPostgres/Migrations/v14.sql")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(Schema.migrations.first { $0.version == 14 }?.sql == text)
        // Every statement ends where the store's splitter ends it: no comment line ends in ';'.
        let statements = PostgresBookingService.statements(of: text)
        #expect(statements.count == 6, "\(statements.count) statements")
    }
}
#endif
