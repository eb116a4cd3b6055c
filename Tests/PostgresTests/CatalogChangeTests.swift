#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler
@testable import SlotSchedulerPostgres
import Testing

/// A catalog change on a two-instance deployment: applied through one instance, seen by the
/// other at its next command without a restart, displacing exactly what the in-memory ledger
/// displaces, and kept by an instance started later with the first catalog file.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct CatalogChangeTests {
    /// South retired; north's socket 2 retired, a socket 3 added; east added.
    static var changed: [Station] {
        var north = Fixture.stations[0]
        north.sockets = [north.sockets[0], north.sockets[2], Socket(id: "3", connector: .ccs, powerKW: 300)]
        let east = Station(
            id: "east", name: "East", city: "Hull", timeZone: Fixture.london,
            sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])
        return [north, east]
    }

    /// The bookings both the database and a ledger get: kept on north 1, displaced on north 2 and
    /// south A, and a hold on south B dropped.
    static let requests: [ReservationRequest] = [
        .init(slot: Fixture.slot("north", "1", hour: 10), user: 1),
        .init(slot: Fixture.slot("north", "2", hour: 11), user: 1),
        .init(slot: Fixture.slot("south", "A", hour: 12), user: 2),
    ]

    @Test(.databaseTestLimit) func twoInstancesSeeTheChangeWithoutARestart() async throws {
        let schema = TestDatabase.freshSchema("catalogchange")
        let first = try await TestDatabase.store(schema: schema)
        let second = try await TestDatabase.store(schema: schema)
        var ledger = try Ledger(stations: Fixture.stations, policy: Fixture.policy)
        for request in Self.requests {
            _ = try await first.reserve(request, at: Fixture.now)
            _ = try ledger.reserve(request, at: Fixture.now)
        }
        let holdSlot = Fixture.slot("south", "B", hour: 9)
        _ = try await second.hold(holdSlot, for: 3, reminder: nil, at: Fixture.now)
        _ = try ledger.hold(holdSlot, for: 3, at: Fixture.now)

        let change = CatalogChange(stations: Self.changed)
        let result = try await first.changeCatalog(change, at: Fixture.now)
        let expected = try ledger.changeCatalog(change, at: Fixture.now)
        #expect(result.displaced.map(\.slot) == expected.displaced.map(\.slot))
        #expect(result.displaced.map(\.slot.socket) == ["2", "A"])
        #expect(result.droppedHolds.map(\.slot) == [holdSlot])
        #expect(result.difference == expected.difference && result.revision == 1)
        #expect(first.rules.catalog.record == ledger.catalog.record)

        // The second instance still has the first catalog: its next command meets the new
        // version, reloads, and decides under the new catalog.
        #expect(second.rules.catalog.revision == 0)
        await #expect(throws: Rejection.self) {
            try await second.reserve(.init(slot: Fixture.slot("south", "A", hour: 15), user: 4), at: Fixture.now)
        }
        #expect(second.rules.catalog.revision == 1)
        let added = try await second.reserve(.init(slot: Fixture.slot("east", "1", hour: 9), user: 4), at: Fixture.now)
        let onNew = try await second.reserve(
            .init(slot: Fixture.slot("north", "3", hour: 9), user: 4), at: Fixture.now)
        #expect(added.slot.station == "east" && onNew.slot.socket == "3")
        #expect(try await second.holds(at: Fixture.now).isEmpty)
        #expect(
            try await second.allBookingsByID().map(\.status).filter { $0 == .displaced }.count == 2)
        let view = try await second.dayView(of: "north", on: Fixture.day, at: Fixture.now)
        #expect(view.sockets.map(\.socket) == ["1", "night", "3"])
        await #expect(throws: Rejection.self) {
            try await second.dayView(of: "south", on: Fixture.day, at: Fixture.now)
        }
        // A write decided under the old catalog (what a transaction that waited for the change's
        // lock would do) is refused by migration 11's guard: south A (flat 3) is retired.
        let day = Fixture.day.dayNumber
        for (socket, hour, refused) in [(Int32(3), Int32(16), true), (0, 16, false)] {
            let insert: PostgresQuery = """
                INSERT INTO bookings (station_idx, socket_idx, day, hour, user_id, start_at, created_at)
                VALUES (\(socket == 3 ? 1 : 0), \(socket), \(day), \(hour), 7, 0, 0)
                """
            let logger = first.logger
            let state = await Self.sqlState {
                let _: [PostgresRow] = try await first.transaction { connection in
                    try await connection.allRows(insert, logger: logger)
                }
            }
            #expect((state == "40001") == refused, "socket \(socket): SQLSTATE \(state ?? "none")")
        }
        await first.shutdown()
        await second.shutdown()

        // Started later with the first catalog file: the database's catalog, indices and all.
        let later = try await TestDatabase.store(schema: schema)
        #expect(later.rules.catalog.record == ledger.catalog.record)
        #expect(try await later.booking(added.id)?.slot.station == "east")
        await later.shutdown()
    }

    /// The SQLSTATE `body` failed with, or `nil` when it succeeded.
    static func sqlState(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? PSQLError)?.serverInfo?[.sqlState] ?? "\(error)"
        }
    }

    /// A refused change (`.refuse` with bookings in the way) changes nothing, not even the version.
    @Test(.databaseTestLimit) func aRefusedChangeChangesNothing() async throws {
        let schema = TestDatabase.freshSchema("catalogrefused")
        let store = try await TestDatabase.store(schema: schema)
        _ = try await store.reserve(Self.requests[2], at: Fixture.now)
        let version = store.policyVersion
        await #expect(throws: Rejection.self) {
            try await store.changeCatalog(CatalogChange(stations: Self.changed), onBookings: .refuse, at: Fixture.now)
        }
        try await store.reloadPolicy()
        #expect(store.policyVersion == version && store.rules.catalog.revision == 0)
        await store.shutdown()
    }
}
#endif
