#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// A store that cannot connect says why, within its connect timeout, instead of retrying for a
/// minute and reporting a tripped circuit breaker.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct ConnectionErrorTests {
    /// The test server's URL with `change` applied to its parts, with the default connect timeout
    /// (10 s): it bounds TLS and authentication too, and a shorter one (3 s) can turn a server
    /// answer on a loaded machine into `connectTimeout`.
    func configuration(_ change: (inout URLComponents) -> Void) throws -> PostgresConfiguration {
        var parts = URLComponents(string: TestDatabase.url ?? "") ?? URLComponents()
        change(&parts)
        return try PostgresConfiguration(url: parts.string ?? "", schema: TestDatabase.freshSchema("connect"))
    }

    func kind(of configuration: PostgresConfiguration) async -> PostgresStoreError.Kind? {
        do {
            let store = try await PostgresBookingService(
                configuration: configuration, stations: Fixture.stations, policy: Fixture.policy)
            await store.shutdown()
            return nil
        } catch {
            return (error as? PostgresStoreError)?.kind
        }
    }

    @Test(.databaseTestLimit) func unknownRoleIsAnAuthenticationFailure() async throws {
        #expect(await kind(of: try configuration { $0.user = "no_such_role" }) == .authenticationFailed)
    }

    @Test(.databaseTestLimit) func unknownDatabaseIsNamed() async throws {
        #expect(await kind(of: try configuration { $0.path = "/no_such_database" }) == .databaseNotFound)
    }

    @Test(.databaseTestLimit) func closedPortIsRefused() async throws {
        // Port 1 on loopback: nothing listens there, and it is not the test server's.
        #expect(await kind(of: try configuration { $0.port = 1 }) == .connectionRefused)
    }

    @Test(.databaseTestLimit) func unresolvableHostIsNamed() async throws {
        let kind = await kind(of: try configuration { $0.host = "no-such-host.invalid" })
        // A resolver with no DNS server may time out instead of answering "no such name".
        #expect(kind == .hostNotFound || kind == .connectTimeout, "\(String(describing: kind))")
    }

    @Test(.databaseTestLimit) func serverWithoutTLSRefusesRequire() async throws {
        guard ProcessInfo.processInfo.environment["SLOTSCHEDULER_PG_CA_FILE"] == nil else { return }
        var config = try configuration { _ in }
        config.tls = .require
        #expect(await kind(of: config) == .tlsFailed)
    }

    /// The core's id rule holds before any SQL: a NUL or a 20,000-character request id is a
    /// refusal, as in memory, not a raw SQLSTATE (22021, 54000).
    @Test(.databaseTestLimit) func requestIDsFollowTheCoreRule() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("ids"))
        for id in ["a\u{0}b", String(repeating: "x", count: 20_000), " padded "] {
            let request = ReservationRequest(slot: Fixture.slot(hour: 10), user: 1, requestID: RequestID(id))
            await #expect { _ = try await store.reserve(request, at: Fixture.now) } throws: {
                ($0 as? Rejection)?.reason == .invalidRequestID
            }
        }
        #expect(try await store.allBookingsByID().isEmpty)
        await store.shutdown()
    }

    /// A call whose caller is cancelled fails with nothing committed, or returns what it
    /// committed. A reservation in a cancelled task used to throw `CancellationError` at once
    /// while its transaction, never cancelled, went on to commit the booking.
    @Test(.databaseTestLimit) func aCancelledCallTellsWhatItCommitted() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("cancelled"))
        var returned: [Int: BookingID] = [:]
        for hour in 8..<12 {
            let task = Task { () -> Booking? in
                withUnsafeCurrentTask { $0?.cancel() }
                let request = ReservationRequest(slot: Fixture.slot(hour: hour), user: UserID(UInt64(hour)))
                return try? await store.reserve(request, at: Fixture.now)
            }
            returned[hour] = await task.value?.id
        }
        // Whatever an abandoned transaction would still do, it has done by now.
        try await Task.sleep(for: .seconds(2))
        let stored = try await store.allBookingsByID().filter { $0.status == .active }
        #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.slot.hour, $0.id) }) == returned)
        await store.shutdown()
    }

    @Test func urlParametersAreRead() throws {
        let config = try PostgresConfiguration(
            url: "postgres://u@h/db?sslmode=verify-full&sslrootcert=/ca.pem&connect_timeout=4&schema=s")
        #expect(config.tls == .verifyFull && config.tlsCAFile == "/ca.pem")
        #expect(config.connectTimeout == .seconds(4) && config.schema == "s")
        #expect(config.maximumConnections == 16 && config.minimumConnections == 0)
        let pooled = try PostgresConfiguration(url: "postgres://u@h/db?pool_min_conns=2&pool_max_conns=4")
        #expect(pooled.maximumConnections == 4 && pooled.minimumConnections == 2)
        for url in [
            "postgres://u@h/db?pool_max_conns=0", "postgres://u@h/db?pool_max_conns=many",
            "postgres://u@h/db?pool_max_conns=4&pool_min_conns=5", "postgres://u@h/db?pool_min_conns=-1",
        ] {
            #expect("\(url)") { try PostgresConfiguration(url: url) } throws: { error in
                (error as? PostgresStoreError).map { $0.kind == .invalidURL && $0.message.contains("pool_") } ?? false
            }
        }
        #expect(throws: PostgresStoreError.self) { try PostgresConfiguration(url: "postgres://u@h/db?sslmode=allow") }
        #expect(throws: PostgresStoreError.self) {
            try PostgresConfiguration(url: "postgres://u@h/db?connect_timeout=0")
        }
        // A parameter the store does not read, or one given twice, is refused with its name: a
        // misspelt sslmode connected without TLS before.
        for (url, name) in [
            ("postgres://u@h/db?ssl_mode=require", "'ssl_mode'"), ("postgres://u@h/db?schema=a&schema=b", "'schema'"),
            ("postgres://u@h/db?sslmode=require&sslmode=disable", "'sslmode'"),
        ] {
            #expect("\(url)") { try PostgresConfiguration(url: url) } throws: { error in
                (error as? PostgresStoreError).map { $0.kind == .invalidURL && $0.message.contains(name) } ?? false
            }
        }
        // The first host's port is checked as the standbys' are.
        for url in ["postgres://u@h:0/db", "postgres://u@h:70000/db", "postgres://u@h:5432,h2:70000/db"] {
            #expect(throws: PostgresStoreError.self, "\(url)") { try PostgresConfiguration(url: url) }
        }
    }

    /// A connect timeout set through the public property saturates when made nanoseconds (it
    /// overflowed and trapped when the probe connected).
    @Test func connectTimeoutSaturates() throws {
        var config = try PostgresConfiguration(url: "postgres://u@h/db")
        config.connectTimeout = .seconds(Int64.max)
        #expect(config.connectTimeoutNanoseconds == .max)
        config.connectTimeout = .seconds(Int64.min)
        #expect(config.connectTimeoutNanoseconds == .min)
        config.connectTimeout = .milliseconds(2_500)
        #expect(config.connectTimeoutNanoseconds == 2_500_000_000)
    }
}
#endif
