import Foundation
import PostgresNIO
import SlotScheduler

extension PostgresBookingService {
    /// Creates the schema, applies pending migrations and registers (or checks) the catalog, all
    /// in one transaction under an advisory lock. Returns the policy in force and its version.
    static func prepare(
        client: PostgresClient, configuration: PostgresConfiguration, catalog: Catalog, policy: Policy,
        migrations: [Schema.Migration], logger: Logger
    ) async throws -> (Policy, Int32) {
        let catalogJSON = try json(catalog.stations)
        let policyJSON = try json(policy)
        let schema = configuration.schema
        try await retry(
            operation: "migrate", idempotent: true, attempts: configuration.maximumAttempts,
            deadline: configuration.attemptTimeout
        ) {
            try await transaction(client: client, logger: logger) { connection in
                let lockKey = "slotscheduler:" + schema
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockKey)))", logger: logger)
                // The name is validated by PostgresConfiguration ([a-z_][a-z0-9_]*), so quoting is safe.
                try await connection.query(
                    "CREATE SCHEMA IF NOT EXISTS \"\(unescaped: schema)\"", logger: logger)
                try await connection.query("SET LOCAL search_path TO \"\(unescaped: schema)\"", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: Schema.bootstrap), logger: logger)
                var applied = Set<Int32>()
                for try await version in try await connection.query(
                    "SELECT version FROM schema_migrations", logger: logger
                ).decode(Int32.self) {
                    applied.insert(version)
                }
                for migration in migrations where !applied.contains(migration.version) {
                    for statement in statements(of: migration.sql) {
                        do {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        } catch let error as PSQLError {
                            throw PostgresStoreError(
                                .database, operation: "migrate v\(migration.version)",
                                sqlState: error.serverInfo?[.sqlState],
                                message: error.serverInfo?[.message] ?? String(reflecting: error))
                        }
                    }
                    try await connection.query(
                        "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                        logger: logger)
                }
                let rows = try await connection.query("SELECT catalog_json FROM deployment", logger: logger).collect()
                if let row = rows.first {
                    let stored = try CatalogLayout.decoding("register catalog") { try row.decode(String.self) }
                    guard stored == catalogJSON else {
                        throw PostgresStoreError(
                            .catalogMismatch, operation: "register catalog",
                            message: "schema \(schema) holds a different catalog than this instance's")
                    }
                    return
                }
                try await connection.query(
                    """
                    INSERT INTO deployment (catalog_json, policy_json, policy_version)
                    VALUES (\(catalogJSON), \(policyJSON), 1)
                    """, logger: logger)
                let ids = catalog.stations.map(\.id.rawValue)
                let zones = catalog.stations.map(\.timeZone)
                let indices = ids.indices.map { Int32($0) }
                try await connection.query(
                    """
                    INSERT INTO stations (idx, id, time_zone)
                    SELECT * FROM unnest(\(indices)::integer[], \(ids)::text[], \(zones)::text[])
                    """, logger: logger)
                let layout = CatalogLayout(catalog)
                var socketStations: [Int32] = []
                var socketIDs: [String] = []
                for (i, station) in catalog.stations.enumerated() {
                    for socket in station.sockets {
                        socketStations.append(Int32(i))
                        socketIDs.append(socket.id.rawValue)
                    }
                }
                let flat = socketIDs.indices.map { Int32($0) }
                let masks = layout.regular.map { Int32(bitPattern: $0) }
                try await connection.query(
                    """
                    INSERT INTO sockets (idx, station_idx, id, regular_mask)
                    SELECT * FROM unnest(\(flat)::integer[], \(socketStations)::integer[], \(socketIDs)::text[],
                                         \(masks)::integer[])
                    """, logger: logger)
            }
        }
        return try await retry(
            operation: "read policy", idempotent: true, attempts: configuration.maximumAttempts,
            deadline: configuration.attemptTimeout
        ) {
            try await readPolicy(client: client, logger: logger)
        }
    }

    static func readPolicy(client: PostgresClient, logger: Logger) async throws -> (Policy, Int32) {
        let rows = try await rows("SELECT policy_json, policy_version FROM deployment", client: client, logger: logger)
        guard let row = rows.first else {
            throw PostgresStoreError(
                .invalidStoredConfiguration, operation: "read policy", message: "no deployment row")
        }
        let (text, version) = try CatalogLayout.decoding("read policy") { try row.decode((String, Int32).self) }
        do {
            return (try JSONDecoder().decode(Policy.self, from: Data(text.utf8)), version)
        } catch {
            throw PostgresStoreError(
                .invalidStoredConfiguration, operation: "read policy", message: String(describing: error))
        }
    }

    /// Canonical JSON (sorted keys), so equal catalogs give equal text.
    static func json(_ value: some Encodable) throws(PostgresStoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw PostgresStoreError(
                .invalidStoredConfiguration, operation: "encode", message: String(describing: error))
        }
    }

    /// Splits a migration into statements: a statement ends at a line ending in `;` outside a
    /// `$fn$ ... $fn$` function body.
    static func statements(of sql: String) -> [String] {
        var result: [String] = []
        var current: [Substring] = []
        var inBody = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            current.append(line)
            if line.components(separatedBy: "$fn$").count % 2 == 0 { inBody.toggle() }
            if !inBody, line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                result.append(current.joined(separator: "\n"))
                current = []
            }
        }
        let rest = current.joined(separator: "\n")
        if !rest.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { result.append(rest) }
        return result
    }

    // MARK: - Retries

    func retrying<T: Sendable>(
        _ operation: String, idempotent: Bool, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await Self.retry(
            operation: operation, idempotent: idempotent, attempts: configuration.maximumAttempts,
            deadline: configuration.attemptTimeout, body)
    }

    /// Runs `body`, repeating it (with a growing pause) after a serialization failure or deadlock,
    /// which the server rolled back, and, when `idempotent`, after a lost connection or an attempt
    /// that got no answer within `deadline` (see `withDeadline`). Refusals and store errors pass
    /// through unchanged.
    static func retry<T: Sendable>(
        operation: String, idempotent: Bool, attempts: Int, deadline: Duration,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                do { return try await withDeadline(deadline, body) } catch let wrapped as PostgresTransactionError {
                    // Report what went wrong inside the transaction, not the wrapper.
                    throw wrapped.closureError ?? wrapped.beginError ?? wrapped.commitError ?? wrapped.rollbackError
                        ?? PostgresStoreError(.database, operation: operation, message: "transaction failed")
                }
            } catch let error as PSQLError {
                let failure = classify(error, operation: operation, idempotent: idempotent)
                guard failure.retry, attempt < attempts else {
                    if failure.retry {
                        throw PostgresStoreError(
                            .retriesExhausted, operation: operation, sqlState: failure.error.sqlState,
                            message: "\(attempts) attempts: \(failure.error.message)")
                    }
                    throw failure.error
                }
                // 10, 20, 40, ... ms, at most 1.3 s: enough to ride out a server restart.
                try await Task.sleep(for: .milliseconds(10 << min(attempt - 1, 7)))
            } catch let abandoned as AbandonedCall {
                let why =
                    switch abandoned {
                    case .connectionClosed: "the connection was closed"
                    case .deadline(let limit): "no answer within \(limit)"
                    }
                guard idempotent else {
                    throw PostgresStoreError(.outcomeUnknown, operation: operation, message: why)
                }
                guard attempt < attempts else {
                    throw PostgresStoreError(
                        .retriesExhausted, operation: operation, message: "\(attempts) attempts: \(why)")
                }
                try await Task.sleep(for: .milliseconds(10 << min(attempt - 1, 7)))
            }
        }
    }

    /// Whether a failed statement may be repeated, and the error to report if not.
    static func classify(_ error: PSQLError, operation: String, idempotent: Bool) -> (
        retry: Bool, error: PostgresStoreError
    ) {
        let state = error.serverInfo?[.sqlState]
        let message = error.serverInfo?[.message] ?? String(reflecting: error)
        switch state {
        case "40001", "40P01":
            // Rolled back by the server: always safe to repeat.
            return (true, PostgresStoreError(.database, operation: operation, sqlState: state, message: message))
        case "57P01", "57P02", "57P03", "08000", "08003", "08006":
            // Terminated backend, shutdown, server starting: the transaction did not commit
            // unless the reply was lost after COMMIT, which only a request id can tell.
            return (
                idempotent,
                PostgresStoreError(
                    idempotent ? .database : .outcomeUnknown, operation: operation, sqlState: state, message: message)
            )
        case .some:
            return (false, PostgresStoreError(.database, operation: operation, sqlState: state, message: message))
        case .none:
            break
        }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown:
            return (
                idempotent,
                PostgresStoreError(
                    idempotent ? .database : .outcomeUnknown, operation: operation, message: String(reflecting: error))
            )
        default:
            return (false, PostgresStoreError(.database, operation: operation, message: String(reflecting: error)))
        }
    }
}
