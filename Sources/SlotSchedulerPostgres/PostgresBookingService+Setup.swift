#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import Logging
import PostgresNIO
import SlotScheduler

extension PostgresBookingService {
    /// Creates the schema, applies pending migrations, registers (or checks) the catalog and reads
    /// the policy in force and its version, all in one transaction under an advisory lock.
    ///
    /// Without the application's statement timeout (``PostgresConfiguration/statementTimeout``):
    /// it bounds a booking's statements, not this deploy step, which waits for another instance's
    /// migration to end and whose DDL waits for the catalog's locks. With a 7.25 s timeout, a
    /// store opened beside others under load failed with `57014` while migrating. The deploy
    /// step's own deadline (``PostgresConfiguration/deployTimeout``) still bounds each attempt.
    static func prepare(
        pool: WritablePool, configuration: PostgresConfiguration, catalog: Catalog, policy: Policy,
        migrations: [Schema.Migration], logger: Logger
    ) async throws -> (policy: Policy, version: Int32, stored: Catalog?) {
        let catalogJSON = try json(catalog.stations)
        let policyJSON = try json(policy)
        let schema = configuration.schema
        let (storedPolicy, version, storedCatalog) = try await retry(
            operation: "migrate", idempotent: true, attempts: configuration.maximumAttempts,
            deadline: configuration.deployTimeout, pool: pool
        ) {
            try await transaction(client: pool.client, logger: logger) { connection in
                try await beginDeployStep(connection, schema: schema, logger: logger)
                if configuration.schemaChanges == .apply {
                    try await migrate(connection, schema: schema, migrations: migrations, logger: logger)
                } else {
                    try await requireMigrated(connection, schema: schema, migrations: migrations, logger: logger)
                }
                let stored = try await registerCatalog(
                    connection, catalog: catalog, catalogJSON: catalogJSON, policyJSON: policyJSON,
                    configuration: configuration, logger: logger)
                let (policy, version) = try await readPolicy(connection, logger: logger)
                if writesPolicyColumns(migrations) {
                    try await writePolicyColumns(policy, on: connection, logger: logger)
                }
                return (policy, version, stored)
            }
        }
        if configuration.policyConflict == .refuse {
            let differences = try policyDifferences(stored: storedPolicy, mine: policy)
            guard differences.isEmpty else {
                throw PostgresStoreError(
                    .policyMismatch, operation: "register catalog",
                    message: "schema \(schema) enforces another policy (\(differences.joined(separator: "; "))); "
                        + "start with the database's policy, change it with updatePolicy, or set policyConflict = .adoptStored"
                )
            }
        }
        return (storedPolicy, version, storedCatalog)
    }

    /// Whether the schema `migrations` end in keeps the policy's check-in columns as plain
    /// columns the store writes (migration 12; before it they were generated from `policy_json`).
    static func writesPolicyColumns(_ migrations: [Schema.Migration]) -> Bool {
        migrations.contains { $0.version == 12 }
    }

    /// Whether the schema `migrations` end in has `slot_reserve_committed` (migration 15): a
    /// reservation is then one `CALL` that commits before it answers, not BEGIN, SELECT, COMMIT.
    static func reservesInOneCall(_ migrations: [Schema.Migration]) -> Bool {
        migrations.contains { $0.version == 15 }
    }

    /// Writes the check-in and no-show rules of `policy` (the one `policy_json` holds) into the
    /// deployment row's columns, which the SQL functions read: the core's `Policy` is the only
    /// statement of their defaults.
    static func writePolicyColumns(_ policy: Policy, on connection: PostgresConnection, logger: Logger) async throws {
        let limit = policy.noShowLimit
        try await connection.allRows(
            """
            UPDATE deployment SET early_check_in = \(policy.earlyCheckInSeconds),
                no_show_grace = \(policy.noShowGraceSeconds), no_show_count = \(limit.map { Int32($0.noShows) }),
                no_show_window = \(limit.map { Int64($0.days) * 86_400 }), no_show_limit = \(limit.map { Int32($0.limit) })
            """, logger: logger)
    }

    /// The policy, its version and the catalog record (`nil` before a catalog change, or on a
    /// schema before migration 11: read through `to_jsonb`, which has no such column then).
    struct StoredRules {
        var policy: Policy
        var version: Int32
        var record: String?

        /// The catalog the record holds, or `current` when it holds the same revision (or none).
        func catalog(replacing current: Catalog) throws -> Catalog {
            guard let record else { return current }
            let catalog = try PostgresBookingService.catalog(record: record, operation: "read catalog")
            return catalog.revision == current.revision ? current : catalog
        }
    }

    static func readStored(client: PostgresClient, logger: Logger) async throws -> StoredRules {
        let rows = try await Self.rows(
            "SELECT policy_json, policy_version, to_jsonb(d) ->> 'catalog_record' FROM deployment d", client: client,
            logger: logger)
        let (policy, version) = try Self.policy(of: rows)
        let record = try rows.first.flatMap { row in
            try CatalogLayout.decoding("read catalog") { try row.decode((String, Int32, String?).self).2 }
        }
        return StoredRules(policy: policy, version: version, record: record)
    }

    /// The catalog a stored `Catalog.Record` (JSON) holds.
    static func catalog(record: String, operation: String) throws(PostgresStoreError) -> Catalog {
        do {
            return try Catalog(record: try JSONDecoder().decode(Catalog.Record.self, from: Data(record.utf8)))
        } catch {
            throw PostgresStoreError(.invalidStoredConfiguration, operation: operation, message: "\(error)")
        }
    }

    /// Registers the catalog on a schema that holds none (and returns `nil`: `catalog` is in
    /// force); on one that holds a catalog, returns it: the database's, whether its stations are
    /// this instance's or differ (``PostgresConfiguration/catalogConflict``), and after a catalog
    /// change with its indices (`Catalog.Record`).
    static func registerCatalog(
        _ connection: PostgresConnection, catalog: Catalog, catalogJSON: String, policyJSON: String,
        configuration: PostgresConfiguration, logger: Logger
    ) async throws -> Catalog? {
        let schema = configuration.schema
        let rows = try await connection.allRows(
            "SELECT catalog_json, to_jsonb(d) ->> 'catalog_record' FROM deployment d", logger: logger)
        if let row = rows.first {
            let (json, record) = try CatalogLayout.decoding("register catalog") {
                try row.decode((String, String?).self)
            }
            let stored: Catalog
            if let record {
                stored = try Self.catalog(record: record, operation: "register catalog")
            } else if json == catalogJSON {
                return nil
            } else {
                do {
                    stored = try Catalog(try JSONDecoder().decode([Station].self, from: Data(json.utf8)))
                } catch {
                    throw PostgresStoreError(
                        .invalidStoredConfiguration, operation: "register catalog", message: String(describing: error))
                }
            }
            guard stored.stations == catalog.stations || configuration.catalogConflict == .adoptStored else {
                throw PostgresStoreError(
                    .catalogMismatch, operation: "register catalog",
                    message: "schema \(schema) holds a different catalog than this instance's")
            }
            return stored
        }
        guard configuration.schemaChanges == .apply else {
            throw PostgresStoreError(
                .schemaNotReady, operation: "register catalog",
                message: "schema \(schema) holds no catalog yet: deploy it once as the owner role")
        }
        try await connection.allRows(
            """
            INSERT INTO deployment (catalog_json, policy_json, policy_version)
            VALUES (\(catalogJSON), \(policyJSON), 1)
            """, logger: logger)
        let ids = catalog.stations.map(\.id.rawValue)
        let zones = catalog.stations.map(\.timeZone)
        let indices = ids.indices.map { Int32($0) }
        try await connection.allRows(
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
        try await connection.allRows(
            """
            INSERT INTO sockets (idx, station_idx, id, regular_mask)
            SELECT * FROM unnest(\(flat)::integer[], \(socketStations)::integer[], \(socketIDs)::text[],
                                 \(masks)::integer[])
            """, logger: logger)
        return nil
    }

    /// The top-level policy fields whose values differ, as "field: database X, this instance Y".
    static func policyDifferences(stored: Policy, mine: Policy) throws(PostgresStoreError) -> [String] {
        let (a, b) = (try json(stored), try json(mine))
        guard a != b else { return [] }
        func fields(_ text: String) -> [String: String] {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                return [:]
            }
            var result: [String: String] = [:]
            for (key, value) in object {
                let data = try? JSONSerialization.data(
                    withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
                result[key] = data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
            }
            return result
        }
        let (theirs, ours) = (fields(a), fields(b))
        let keys = Set(theirs.keys).union(ours.keys).sorted()
        let differing = keys.filter { theirs[$0] != ours[$0] }.map {
            "\($0): database \(theirs[$0] ?? "absent"), this instance \(ours[$0] ?? "absent")"
        }
        return differing.isEmpty ? ["the policies differ"] : differing
    }

    /// Creates the schema if missing and applies the pending ones of `migrations`.
    /// Returns the versions it applied.
    @discardableResult
    static func migrate(
        _ connection: PostgresConnection, schema: String, migrations: [Schema.Migration], logger: Logger
    ) async throws -> [Int32] {
        // The name is validated by PostgresConfiguration ([a-z_][a-z0-9_]*), so quoting is safe.
        try await connection.allRows("CREATE SCHEMA IF NOT EXISTS \"\(unescaped: schema)\"", logger: logger)
        try await connection.allRows("SET LOCAL search_path TO \"\(unescaped: schema)\"", logger: logger)
        try await connection.allRows(PostgresQuery(unsafeSQL: Schema.bootstrap), logger: logger)
        let applied = try await appliedVersions(connection, logger: logger)
        let pending = migrations.filter { !applied.contains($0.version) }
        for migration in pending {
            for statement in statements(of: migration.sql) {
                do {
                    try await connection.allRows(PostgresQuery(unsafeSQL: statement), logger: logger)
                } catch let error as PSQLError {
                    throw PostgresStoreError(
                        .database, operation: "migrate v\(migration.version)",
                        sqlState: error.serverInfo?[.sqlState],
                        message: error.serverInfo?[.message] ?? String(reflecting: error))
                }
            }
            try await connection.allRows(
                "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                logger: logger)
        }
        if !pending.isEmpty { try await grantAgain(connection, schema: schema, logger: logger) }
        return pending.map(\.version)
    }

    /// The start of every deploy step's transaction: no statement timeout (it bounds bookings, not
    /// this step) and the deployment's advisory lock, so simultaneous starts run one at a time.
    static func beginDeployStep(_ connection: PostgresConnection, schema: String, logger: Logger) async throws {
        try await connection.allRows("SET LOCAL statement_timeout = 0", logger: logger)
        let lockKey = "slotscheduler:" + schema
        try await connection.allRows("SELECT pg_advisory_xact_lock(hashtext(\(lockKey)))", logger: logger)
    }

    /// Gives every role of `runtime_roles` (migration 10) its grants again, after migrations that
    /// may have created tables or functions: each grant is given again, none taken away.
    static func grantAgain(_ connection: PostgresConnection, schema: String, logger: Logger) async throws {
        let table = try await connection.allRows("SELECT to_regclass('runtime_roles') IS NOT NULL", logger: logger)
        guard try table.first.map({ row in try row.decode(Bool.self) }) == true else { return }
        for row in try await connection.allRows("SELECT role FROM runtime_roles ORDER BY role", logger: logger) {
            let role = try row.decode(String.self)
            // A role dropped since its grant, or renamed to a name this store would not take, is
            // left out rather than failing the deployment.
            guard PostgresConfiguration.isValidSchemaName(role) else { continue }
            let exists = try await connection.allRows("SELECT 1 FROM pg_roles WHERE rolname = \(role)", logger: logger)
            guard !exists.isEmpty else { continue }
            for statement in grantStatements(schema: schema, role: role) {
                try await connection.allRows(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    /// For a role without DDL rights: the schema must already hold every migration.
    static func requireMigrated(
        _ connection: PostgresConnection, schema: String, migrations: [Schema.Migration], logger: Logger
    ) async throws {
        try await connection.allRows("SET LOCAL search_path TO \"\(unescaped: schema)\"", logger: logger)
        let applied: Set<Int32>
        do {
            applied = try await appliedVersions(connection, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            applied = []  // undefined_table: nothing was ever deployed there
        }
        let missing = migrations.map(\.version).filter { !applied.contains($0) }
        guard missing.isEmpty else {
            throw PostgresStoreError(
                .schemaNotReady, operation: "check schema",
                message: "schema \(schema) lacks migration(s) \(missing.map(String.init).joined(separator: ", ")): "
                    + "apply them as the owner role (schemaChanges = .apply)")
        }
    }

    static func appliedVersions(_ connection: PostgresConnection, logger: Logger) async throws -> Set<Int32> {
        var applied = Set<Int32>()
        for row in try await connection.allRows("SELECT version FROM schema_migrations", logger: logger) {
            applied.insert(try row.decode(Int32.self))
        }
        return applied
    }

    static func readPolicy(client: PostgresClient, logger: Logger) async throws -> (Policy, Int32) {
        try policy(
            of: try await rows("SELECT policy_json, policy_version FROM deployment", client: client, logger: logger))
    }

    /// The policy, read in the deploy step's transaction (without the statement timeout).
    static func readPolicy(_ connection: PostgresConnection, logger: Logger) async throws -> (Policy, Int32) {
        try policy(
            of: try await connection.allRows("SELECT policy_json, policy_version FROM deployment", logger: logger))
    }

    static func policy(of rows: [PostgresRow]) throws -> (Policy, Int32) {
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

    /// Runs one call of the store's (see ``retry(operation:idempotent:attempts:deadline:pool:_:)``),
    /// once admitted: after ``shutdown()`` has begun, a call is refused with
    /// ``PostgresStoreError/Kind/shuttingDown`` and nothing is sent.
    func retrying<T: Sendable>(
        _ operation: String, idempotent: Bool, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard admission.enter() else {
            throw PostgresStoreError(
                .shuttingDown, operation: operation, message: "the store is shutting down and takes no new calls")
        }
        defer { admission.leave() }
        return try await Self.retry(
            operation: operation, idempotent: idempotent, attempts: configuration.maximumAttempts,
            deadline: configuration.attemptTimeout, pool: pool, body)
    }

    /// Runs `body`, repeating it (with a growing pause) after a serialization failure or deadlock,
    /// which the server rolled back, and, when `idempotent`, after a lost connection or an attempt
    /// that got no answer within `deadline` (see `withDeadline`). Refusals and store errors pass
    /// through unchanged.
    ///
    /// Before repeating after a lost connection or a read-only refusal, the pool moves to the
    /// host that accepts writes, if the configuration names standbys.
    static func retry<T: Sendable>(
        operation: String, idempotent: Bool, attempts: Int, deadline: Duration, pool: WritablePool,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        var attempt = 0
        var lostServer = false
        /// Logs the repeat, then waits 10, 20, 40, ... ms, at most 1.3 s: enough to ride out a
        /// server restart.
        func again(_ why: @autoclosure () -> String) async throws {
            pool.counters.repeated(operation)
            pool.logger.warning(
                "PostgreSQL store repeats a call",
                metadata: ["operation": "\(operation)", "attempt": "\(attempt)", "reason": "\(why())"])
            try await Task.sleep(for: .milliseconds(10 << min(attempt - 1, 7)))
        }
        /// `error`, logged when it leaves the outcome unknown or ends the repeats.
        func giveUp(_ error: PostgresStoreError) -> PostgresStoreError {
            if error.kind == .outcomeUnknown || error.kind == .retriesExhausted {
                pool.counters.gaveUp(operation, kind: error.kind)
                pool.logger.warning(
                    "PostgreSQL store call failed: \(error.kind.rawValue)",
                    metadata: ["operation": "\(operation)", "attempt": "\(attempt)", "error": "\(error)"])
            }
            return error
        }
        while true {
            attempt += 1
            if lostServer { await pool.followPrimary() }
            lostServer = true  // unless the failure below is a refusal the server sent
            do {
                return try await withDeadline(deadline, body)
            } catch let error as PSQLError {
                var failure = classify(error, operation: operation, idempotent: idempotent)
                // read_only_sql_transaction: refused by a standby, so not committed; another host may
                // have been promoted.
                if error.serverInfo?[.sqlState] == "25006", pool.hasStandbys { failure.retry = true }
                lostServer = error.serverInfo?[.sqlState] == "25006" || isConnectionLoss(error)
                guard failure.retry, attempt < attempts else {
                    if failure.retry {
                        throw giveUp(
                            PostgresStoreError(
                                .retriesExhausted, operation: operation, sqlState: failure.error.sqlState,
                                message: "\(attempts) attempts: \(failure.error.message)"))
                    }
                    throw giveUp(failure.error)
                }
                try await again(failure.error.message)
            } catch let rolledBack as NotCommitted {
                // Never committed: repeating is safe whether or not the operation is idempotent.
                guard attempt < attempts else {
                    throw giveUp(
                        PostgresStoreError(
                            .retriesExhausted, operation: operation,
                            message: "\(attempts) attempts: \(describe(rolledBack.underlying))"))
                }
                try await again(describe(rolledBack.underlying))
            } catch let abandoned as AbandonedCall {
                let why =
                    switch abandoned {
                    case .connectionClosed: "the connection was closed"
                    case .deadline(let limit): "no answer within \(limit)"
                    }
                guard idempotent else {
                    throw giveUp(PostgresStoreError(.outcomeUnknown, operation: operation, message: why))
                }
                guard attempt < attempts else {
                    throw giveUp(
                        PostgresStoreError(
                            .retriesExhausted, operation: operation, message: "\(attempts) attempts: \(why)"))
                }
                try await again(why)
            }
        }
    }

    /// SQLSTATEs of a session the server ended or could not serve: terminated backend, shutdown,
    /// server starting, and the connection exception class.
    static let connectionLossStates: Set<String> = ["57P01", "57P02", "57P03", "08000", "08003", "08006"]

    /// Whether `error` means the connection was lost (so a transaction in flight did not commit,
    /// unless its `COMMIT` had been sent).
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if let abandoned = error as? AbandonedCall, case .connectionClosed = abandoned { return true }
        guard let error = error as? PSQLError else { return false }
        if let state = error.serverInfo?[.sqlState] { return connectionLossStates.contains(state) }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown: return true
        default: return false
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            return error.serverInfo?[.message] ?? String(reflecting: error)
        }
        if let abandoned = error as? AbandonedCall, case .connectionClosed = abandoned {
            return "the connection was closed"
        }
        return String(describing: error)
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
        case let state? where connectionLossStates.contains(state):
            // Lost while COMMIT was in flight (losses before it arrive as NotCommitted): the
            // outcome is unknown, and only a request id can tell it.
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
        if isConnectionLoss(error) {
            return (
                idempotent,
                PostgresStoreError(
                    idempotent ? .database : .outcomeUnknown, operation: operation, message: String(reflecting: error))
            )
        }
        return (false, PostgresStoreError(.database, operation: operation, message: String(reflecting: error)))
    }
}

extension PostgresBookingService {
    /// Lets `role` run the store, and nothing more: read and write bookings, availability and the
    /// policy, read the catalog and the migrations, call the store's functions. It cannot create,
    /// alter or drop anything, so a compromised service cannot change the schema.
    ///
    /// Run once by the owner role that applied the migrations; the service's instances then
    /// connect as `role` with ``PostgresConfiguration/schemaChanges`` = `.never`. The role is
    /// recorded (`runtime_roles`), and every later migration grants it again, so an upgrade that
    /// creates a table or a function does not lock it out. `schedule-sim db grant` runs this.
    public func grantRuntimeAccess(to role: String) async throws {
        try Self.checkRoleName(role)
        let (schema, logger) = (configuration.schema, logger)
        try await retrying("grant", idempotent: true) {
            try await self.transaction { connection in
                try await Self.grant(connection, schema: schema, role: role, logger: logger)
            }
        }
    }

    static func checkRoleName(_ role: String) throws(PostgresStoreError) {
        guard PostgresConfiguration.isValidSchemaName(role) else {
            throw PostgresStoreError(
                .invalidURL, operation: "grant", message: "role '\(role)' must match [a-z_][a-z0-9_]{0,62}")
        }
    }

    /// Grants `role` runtime access and records it in `runtime_roles` (when migration 10 is
    /// applied), so that later migrations grant it again.
    static func grant(_ connection: PostgresConnection, schema: String, role: String, logger: Logger) async throws {
        for statement in grantStatements(schema: schema, role: role) {
            try await connection.allRows(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        let quoted = "\"\(schema)\""
        let table = try await connection.allRows(
            "SELECT to_regclass(\(quoted + ".runtime_roles")) IS NOT NULL", logger: logger)
        guard try table.first.map({ row in try row.decode(Bool.self) }) == true else { return }
        try await connection.allRows(
            PostgresQuery(
                unsafeSQL: "INSERT INTO \(quoted).runtime_roles (role) VALUES ('\(role)') ON CONFLICT DO NOTHING"),
            logger: logger)
    }

    /// The statements that let `role` run the store in `schema`, and nothing more. Both names are
    /// validated identifiers ([a-z_][a-z0-9_]*), so quoting them is safe.
    static func grantStatements(schema: String, role: String) -> [String] {
        let (schema, role) = ("\"\(schema)\"", "\"\(role)\"")
        return [
            "GRANT USAGE ON SCHEMA \(schema) TO \(role)",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(schema) TO \(role)",
            // A catalog change writes the catalog's tables through `catalog_index` (migration 11),
            // which runs with the owner's rights: the runtime role cannot write them itself.
            "REVOKE INSERT, UPDATE, DELETE ON \(schema).schema_migrations, \(schema).stations, \(schema).sockets FROM \(role)",
            "DO $$ BEGIN IF to_regclass('\(schema).runtime_roles') IS NOT NULL THEN "
                + "REVOKE INSERT, UPDATE, DELETE ON \(schema).runtime_roles FROM \(role); END IF; END $$",
            "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA \(schema) TO \(role)",
            "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \(schema) TO \(role)",
            // ALL FUNCTIONS leaves procedures out: `slot_reserve_committed` (migration 15) is one.
            "GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA \(schema) TO \(role)",
        ]
    }
}
#endif
