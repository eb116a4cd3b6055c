#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import SlotSchedulerPostgres
import Testing

/// The test server's CA and another one (see Scripts/with-postgres.sh).
enum TestCertificates {
    static let caFile = ProcessInfo.processInfo.environment["SLOTSCHEDULER_PG_CA_FILE"]
    static let wrongCAFile = ProcessInfo.processInfo.environment["SLOTSCHEDULER_PG_WRONG_CA_FILE"]
}

/// `verify-full` against the test server's certificate (Scripts/with-postgres.sh makes a CA and a
/// certificate for the name `localhost` only): the right CA and host connect and book; a wrong CA
/// or a host the certificate does not name are refused before any password or booking is sent.
@Suite(
    .sharedDatabase,
    .enabled(
        if: TestDatabase.url != nil && TestCertificates.caFile != nil,
        "needs the TLS-enabled test server of Scripts/with-postgres.sh"))
struct TLSTests {
    static let caFile = TestCertificates.caFile
    static let wrongCAFile = TestCertificates.wrongCAFile

    func configuration(host: String, mode: PostgresConfiguration.TLSMode, ca: String?) throws
        -> PostgresConfiguration
    {
        var config = try TestDatabase.configuration(schema: TestDatabase.freshSchema("tls"))
        config.host = host
        config.tls = mode
        config.tlsCAFile = ca
        return config
    }

    func connect(_ config: PostgresConfiguration) async throws -> PostgresBookingService {
        try await PostgresBookingService(configuration: config, stations: Fixture.stations, policy: Fixture.policy)
    }

    @Test(.databaseTestLimit) func verifyFullWithTheRightCAAndHostBooks() async throws {
        let store = try await connect(try configuration(host: "localhost", mode: .verifyFull, ca: Self.caFile))
        let booking = try await store.reserve(.init(slot: Fixture.slot(hour: 10), user: 1), at: Fixture.now)
        #expect(try await store.booking(booking.id) == booking)
        await store.shutdown()
    }

    @Test(.databaseTestLimit) func requireConnectsWithoutVerifying() async throws {
        let store = try await connect(try configuration(host: "127.0.0.1", mode: .require, ca: Self.wrongCAFile))
        #expect(try await store.allBookingsByID().isEmpty)
        await store.shutdown()
    }

    @Test(.databaseTestLimit) func verifyFullRefusesAWrongCA() async throws {
        await #expect {
            _ = try await connect(try configuration(host: "localhost", mode: .verifyFull, ca: Self.wrongCAFile))
        } throws: { ($0 as? PostgresStoreError)?.kind == .tlsFailed }
    }

    @Test(.databaseTestLimit) func verifyFullRefusesAHostTheCertificateDoesNotName() async throws {
        await #expect {
            _ = try await connect(try configuration(host: "127.0.0.1", mode: .verifyFull, ca: Self.caFile))
        } throws: { ($0 as? PostgresStoreError)?.kind == .tlsFailed }
    }
}
#endif
