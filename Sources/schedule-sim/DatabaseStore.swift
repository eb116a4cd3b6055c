import ArgumentParser
import SlotScheduler
import SlotSimulation

#if Postgres
import SlotSchedulerPostgres
#endif

/// A database store as `run --store` and `verify-store` use it: the operations, and a way to
/// close its connections.
protocol DatabaseStore: BookingService {
    func shutdown() async
}

#if Postgres
extension PostgresBookingService: DatabaseStore {}

/// `--store URL` or `--store env`, as a PostgreSQL configuration.
func storeConfiguration(_ store: String) throws(ValidationError) -> PostgresConfiguration {
    do {
        if store == "env" { return try PostgresConfiguration.fromEnvironment() }
        if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
            return try PostgresConfiguration(url: store)
        }
    } catch {
        throw ValidationError("--store: \(error)")
    }
    throw ValidationError("unknown --store \(store); use `memory`, a postgres:// URL or `env`")
}

/// Connects to the database store with `rules`' stations and policy (exit 69 if it cannot).
func connect(_ store: String, rules: Rules) async throws -> any DatabaseStore {
    let configuration = try storeConfiguration(store)
    do {
        return try await PostgresBookingService(
            configuration: configuration, stations: rules.catalog.stations, policy: rules.policy)
    } catch {
        throw StoreFailure("cannot open the store: \(error)").exit()
    }
}
#else
/// Built without the `Postgres` trait: every database store is refused as a usage error, before
/// anything runs, with the command that builds one with it.
func storeConfiguration(_ store: String) throws(ValidationError) {
    throw ValidationError(
        """
        --store \(store): this schedule-sim was built without the PostgreSQL store; build it with the \
        Postgres trait, e.g. `swift run -c release --traits Postgres schedule-sim run SCENARIO --store env`
        """)
}

func connect(_ store: String, rules: Rules) async throws -> any DatabaseStore {
    try storeConfiguration(store)
    throw StoreFailure("unreachable: --store \(store) was accepted without the PostgreSQL store").exit()
}
#endif
