#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Logging
import SlotScheduler
@testable import SlotSchedulerPostgres
import Testing

/// An instance started with another catalog file than the one the database holds runs with the
/// database's, and says so; or, with `catalogConflict = .refuse`, does not start.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct CatalogConflictTests {
    /// The first instance's stations, less one socket and with a station renamed.
    static var olderFile: [Station] {
        var stations = Fixture.stations
        stations[0].sockets.removeLast()
        stations[1].name = "South (old name)"
        return stations
    }

    @Test(.databaseTestLimit) func anInstanceWithAnotherCatalogRunsWithTheStoredOne() async throws {
        let schema = TestDatabase.freshSchema("catalog")
        let first = try await TestDatabase.store(schema: schema)
        let night = try await first.reserve(
            .init(slot: Fixture.slot("north", "night", hour: 2), user: 1), at: Fixture.now)
        await first.shutdown()

        let logs = CapturedLogs()
        let second = try await TestDatabase.store(schema: schema, stations: Self.olderFile, logger: logs.logger())
        #expect(second.rules.catalog.stations == Fixture.stations)
        // The socket the older file lacks is the database's, with its booking.
        #expect(try await second.booking(night.id)?.slot == Fixture.slot("north", "night", hour: 2))
        let warning = logs.all.first { $0.level == .warning && $0.message.contains("database's catalog") }
        #expect(warning?.metadata["stations differing"] == "north, south")
        await second.shutdown()

        var refusing = try TestDatabase.configuration(schema: schema)
        refusing.catalogConflict = .refuse
        await #expect {
            _ = try await PostgresBookingService(
                configuration: refusing, stations: Self.olderFile, policy: Fixture.policy)
        } throws: { ($0 as? PostgresStoreError)?.kind == .catalogMismatch }
    }
}
#endif
