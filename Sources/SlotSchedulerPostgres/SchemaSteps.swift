#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Logging
import Metrics
import PostgresNIO
import SlotScheduler

/// The schema's deploy steps without a store: what `schedule-sim db status|migrate|grant` runs,
/// as the owner role, before the service's instances start with
/// ``PostgresConfiguration/schemaChanges`` = `.never`.
public enum SchemaSteps {
    /// One migration this code knows, applied or pending; or one applied that it does not know
    /// (newer code ran it).
    public struct Migration: Hashable, Sendable {
        public var version: Int32
        public var name: String
        /// When it was applied (the database's clock, as text), or `nil` while pending.
        public var appliedAt: String?
        /// Whether this code knows it.
        public var isKnown: Bool
    }

    /// The migrations this code knows and those the schema holds, by version.
    public static func status(_ configuration: PostgresConfiguration, logger: Logger? = nil) async throws
        -> [Migration]
    {
        try await withConnection(configuration, operation: "status", logger: logger) { connection, logger in
            let schema = configuration.schema
            try await connection.allRows("SET LOCAL search_path TO \"\(unescaped: schema)\"", logger: logger)
            var applied: [Int32: (String, String)] = [:]
            let exists = try await connection.allRows(
                "SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
            if try exists.first?.decode(Bool.self) == true {
                let rows = try await connection.allRows(
                    "SELECT version, name, applied_at::text FROM schema_migrations", logger: logger)
                for row in rows {
                    let (version, name, at) = try row.decode((Int32, String, String).self)
                    applied[version] = (name, at)
                }
            }
            var list = Schema.migrations.map {
                Migration(version: $0.version, name: $0.name, appliedAt: applied[$0.version]?.1, isKnown: true)
            }
            let known = Set(Schema.migrations.map(\.version))
            for (version, (name, at)) in applied where !known.contains(version) {
                list.append(Migration(version: version, name: name, appliedAt: at, isKnown: false))
            }
            return list.sorted { $0.version < $1.version }
        }
    }

    /// Applies the pending migrations under the deployment's advisory lock (as a store's start
    /// does), then grants every recorded runtime role again; returns the versions applied.
    public static func migrate(_ configuration: PostgresConfiguration, logger: Logger? = nil) async throws -> [Int32] {
        try await withConnection(configuration, operation: "migrate", logger: logger) { connection, logger in
            try await PostgresBookingService.beginDeployStep(connection, schema: configuration.schema, logger: logger)
            return try await PostgresBookingService.migrate(
                connection, schema: configuration.schema, migrations: Schema.migrations, logger: logger)
        }
    }

    /// Lets `role` run the store and records it, so later migrations grant it again (see
    /// ``PostgresBookingService/grantRuntimeAccess(to:)``).
    public static func grantRuntimeAccess(
        _ configuration: PostgresConfiguration, to role: String, logger: Logger? = nil
    )
        async throws
    {
        try PostgresBookingService.checkRoleName(role)
        try await withConnection(configuration, operation: "grant", logger: logger) { connection, logger in
            try await PostgresBookingService.grant(connection, schema: configuration.schema, role: role, logger: logger)
        }
    }

    /// Runs `body` in one transaction on a pool of its own, retried as the store retries, and
    /// closes the pool.
    static func withConnection<T: Sendable>(
        _ configuration: PostgresConfiguration, operation: String, logger: Logger?,
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let logger = logger ?? PostgresBookingService.quietLogger
        let pool = try await WritablePool(
            configuration, logger: logger, counters: StoreCounters(factory: MetricsSystem.factory))
        do {
            let value = try await PostgresBookingService.retry(
                operation: operation, idempotent: true, attempts: configuration.maximumAttempts,
                deadline: configuration.deployTimeout, pool: pool
            ) {
                try await PostgresBookingService.transaction(client: pool.client, logger: logger) { connection in
                    try await body(connection, logger)
                }
            }
            await pool.shutdown()
            return value
        } catch {
            await pool.shutdown()
            throw error
        }
    }
}
#endif
