#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO

/// Where the store's database is: parsed from `postgres://user[:password]@host[:port]/database`
/// or from the environment variable `SLOTSCHEDULER_DATABASE_URL`.
///
/// URL parameters: `schema=name`, `sslmode=disable|require|verify-full`, `sslrootcert=path` (the CA
/// file for `verify-full`), `connect_timeout=seconds`, `application_name=name`, as libpq spells
/// them; any other (a misspelt `sslmode`, say), or one given twice, is refused.
public struct PostgresConfiguration: Hashable, Sendable {
    /// The environment variable ``fromEnvironment(schema:)`` reads.
    public static let environmentVariable = "SLOTSCHEDULER_DATABASE_URL"

    public var host: String
    public var port: Int
    /// Further servers (standbys), tried in order when `host` does not accept writes: the store
    /// uses the first that is not in recovery, and moves there after a failover. The URL form is
    /// libpq's `postgres://user@primary:5432,standby:5433/database`.
    public var standbys: [Host] = []

    /// One server's address.
    public struct Host: Hashable, Sendable, CustomStringConvertible {
        public var host: String
        public var port: Int
        public init(host: String, port: Int = 5432) {
            self.host = host
            self.port = port
        }
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// `host` and then the standbys.
    public var hosts: [Host] { [Host(host: host, port: port)] + standbys }
    public var username: String
    public var password: String?
    public var database: String
    /// The schema the tables live in; it is created if missing. Lowercase letters, digits, `_`.
    public var schema: String
    /// Maximum connections of this instance's pool.
    public var maximumConnections: Int = 16
    /// Connections the pool keeps open while idle, so the first calls after a quiet spell do not
    /// wait for a connection (at most ``maximumConnections``).
    public var minimumConnections: Int = 0
    /// The name the server shows for this instance's sessions (`pg_stat_activity`, the server's
    /// log): ASCII, at most 63 characters; others are dropped.
    public var applicationName: String = "slotscheduler"
    /// The server's `statement_timeout` for this instance's sessions: a statement that runs longer
    /// is cancelled by the server and its transaction rolled back, so it is never half done;
    /// whole milliseconds from 1 ms. `nil` keeps the server's setting. The per-attempt wait
    /// (``attemptTimeout``) still bounds what the caller waits.
    public var statementTimeout: Duration?
    /// Attempts per operation on serialization failures, deadlocks and lost connections.
    public var maximumAttempts: Int = 8
    /// How long one attempt may wait for the server (including waiting for a pooled connection)
    /// before it is abandoned and treated as a lost connection.
    public var attemptTimeout: Duration = .seconds(10)
    /// How long one attempt of a deploy step may wait: opening a store (creating the schema,
    /// migrating, registering the catalog), `migrate`, `grant`. Such a step waits for another
    /// instance's step to end (one at a time, under an advisory lock) and runs DDL, so it gets
    /// longer than a booking's ``attemptTimeout``: with 10 s, stores opened side by side on a
    /// loaded machine each abandoned their migration, attempt after attempt, and none opened.
    public var deployTimeout: Duration = .seconds(120)
    /// How long opening a connection (TCP, TLS and authentication) may take before it fails with
    /// ``PostgresStoreError/Kind/connectTimeout``.
    public var connectTimeout: Duration = .seconds(10)
    /// Whether the connection is encrypted, and how the server's certificate is checked.
    public var tls: TLSMode = .disable
    /// The CA certificates (PEM) that `verify-full` trusts; the system's when `nil`.
    public var tlsCAFile: String?

    /// Whether this instance creates the schema and applies migrations (the owner role), or
    /// only checks that they were applied (a runtime role that may use the tables but not change
    /// them; see ``PostgresBookingService/grantRuntimeAccess(to:)``).
    public var schemaChanges: SchemaChanges = .apply

    public enum SchemaChanges: String, Hashable, Sendable {
        case apply
        case never
    }

    /// What an instance does when the database already enforces another policy than the one it
    /// was started with.
    public var policyConflict: PolicyConflict = .refuse

    public enum PolicyConflict: String, Hashable, Sendable {
        /// Fail with ``PostgresStoreError/Kind/policyMismatch``, naming the fields that differ.
        case refuse
        /// Enforce the database's policy (set by the first instance or ``PostgresBookingService/updatePolicy(_:)``).
        case adoptStored
    }

    /// What an instance does when the database holds another catalog than the stations it was
    /// started with (an older or newer catalog file): by default it runs with the database's and
    /// logs so at `warning`, naming the stations that differ.
    public var catalogConflict: CatalogConflict = .adoptStored

    public enum CatalogConflict: String, Hashable, Sendable {
        /// Fail with ``PostgresStoreError/Kind/catalogMismatch``.
        case refuse
        /// Run with the database's catalog, the one every other instance runs with.
        case adoptStored
    }

    /// libpq's `sslmode`, the values the store supports.
    public enum TLSMode: String, Hashable, Sendable, CaseIterable {
        /// No TLS: passwords and bookings cross the network in clear. Loopback and tests only.
        case disable
        /// TLS, without checking the server's certificate (protects against listeners, not
        /// against an impostor).
        case require
        /// TLS; the certificate must chain to ``PostgresConfiguration/tlsCAFile`` (or the system's
        /// roots) and name the host connected to.
        case verifyFull = "verify-full"
    }

    public init(
        host: String, port: Int = 5432, username: String, password: String? = nil, database: String,
        schema: String = "public"
    ) throws(PostgresStoreError) {
        guard Self.isValidSchemaName(schema) else {
            throw PostgresStoreError(
                .invalidURL, operation: "configure", message: "schema '\(schema)' must match [a-z_][a-z0-9_]{0,62}")
        }
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
    }

    /// `port` if it is a TCP port (1...65535), else the error `invalid` makes.
    private static func port(_ port: Int, or invalid: (String) -> PostgresStoreError) throws(PostgresStoreError) -> Int
    {
        guard (1...65_535).contains(port) else { throw invalid("port \(port) is not 1...65535") }
        return port
    }

    /// The URL parameters ``init(url:schema:)`` reads; any other is refused.
    static let urlParameters = [
        "schema", "sslmode", "sslrootcert", "connect_timeout", "application_name", "pool_max_conns", "pool_min_conns",
    ]

    /// Parses a `postgres://` or `postgresql://` URL. A `schema` argument overrides `?schema=`.
    /// A parameter other than those listed on the type, or one given twice, is refused.
    public init(url: String, schema: String? = nil) throws(PostgresStoreError) {
        func invalid(_ why: String) -> PostgresStoreError {
            PostgresStoreError(.invalidURL, operation: "configure", message: "\(why) in '\(Self.redacted(url))'")
        }
        // libpq's several hosts, `user@h1:p1,h2:p2/db`: URLComponents reads the first, the rest here.
        let (single, others) = Self.splittingHosts(url)
        guard let parts = URLComponents(string: single) else { throw invalid("not a URL") }
        guard parts.scheme == "postgres" || parts.scheme == "postgresql" else {
            throw invalid("scheme must be postgres:// or postgresql://")
        }
        guard let host = parts.host, !host.isEmpty else { throw invalid("missing host") }
        guard let user = parts.user, !user.isEmpty else { throw invalid("missing user name") }
        let database = String(parts.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw invalid("missing database name") }
        // A parameter this store does not read is refused, as libpq refuses one it does not know:
        // a misspelt `sslmode` would otherwise connect without the TLS it asked for.
        var given: [String] = []
        for item in parts.queryItems ?? [] {
            guard Self.urlParameters.contains(item.name) else {
                throw invalid(
                    "unknown parameter '\(item.name)' (known: \(Self.urlParameters.joined(separator: ", ")))")
            }
            guard !given.contains(item.name) else { throw invalid("parameter '\(item.name)' given twice") }
            given.append(item.name)
        }
        func parameter(_ name: String) -> String? { parts.queryItems?.first { $0.name == name }?.value }
        try self.init(
            host: host, port: try Self.port(parts.port ?? 5432, or: invalid),
            username: user.removingPercentEncoding ?? user,
            password: parts.password.map { $0.removingPercentEncoding ?? $0 }, database: database,
            schema: schema ?? parameter("schema") ?? "public")
        for other in others {
            let pieces = other.split(separator: ":", omittingEmptySubsequences: false)
            guard let name = pieces.first, !name.isEmpty, pieces.count <= 2,
                let port = pieces.count == 2 ? Int(pieces[1]) : 5432, (1...65_535).contains(port)
            else { throw invalid("host '\(other)' is not host[:port]") }
            standbys.append(Host(host: String(name), port: port))
        }
        if let mode = parameter("sslmode") {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw invalid(
                    "sslmode '\(mode)' is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tls = parsed
        }
        tlsCAFile = parameter("sslrootcert")
        if let text = parameter("connect_timeout") {
            guard let seconds = Int(text), (1...3_600).contains(seconds) else {
                throw invalid("connect_timeout '\(text)' is not a number of seconds from 1 to 3600")
            }
            connectTimeout = .seconds(seconds)
        }
        if let name = parameter("application_name") { applicationName = name }
        // pgx's names: ``maximumConnections`` and ``minimumConnections``.
        if let text = parameter("pool_max_conns") {
            guard let count = Int(text), (1...1_000).contains(count) else {
                throw invalid("pool_max_conns '\(text)' is not a number of connections from 1 to 1000")
            }
            maximumConnections = count
        }
        if let text = parameter("pool_min_conns") {
            guard let count = Int(text), (0...maximumConnections).contains(count) else {
                throw invalid("pool_min_conns '\(text)' is not a number of connections from 0 to pool_max_conns")
            }
            minimumConnections = count
        }
    }

    /// The configuration in `SLOTSCHEDULER_DATABASE_URL`.
    public static func fromEnvironment(schema: String? = nil) throws(PostgresStoreError) -> PostgresConfiguration {
        guard let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty else {
            throw PostgresStoreError(
                .missingConfiguration, operation: "configure", message: "\(environmentVariable) is not set")
        }
        return try PostgresConfiguration(url: url, schema: schema)
    }

    static func isValidSchemaName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 63 else { return false }
        func allowed(_ c: Unicode.Scalar, digits: Bool) -> Bool {
            ("a"..."z").contains(c) || c == "_" || (digits && ("0"..."9").contains(c))
        }
        return allowed(first, digits: false) && name.unicodeScalars.allSatisfy { allowed($0, digits: true) }
    }

    /// The URL with its password replaced, for messages.
    public static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<colon] + ":***" + url[at...])
    }

    /// The URL with only its first host, and the other hosts (`host[:port]` each).
    static func splittingHosts(_ url: String) -> (String, [String]) {
        guard let schemeEnd = url.range(of: "://") else { return (url, []) }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostsStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hosts = authority[hostsStart...].split(separator: ",", omittingEmptySubsequences: false)
        guard hosts.count > 1, let first = hosts.first else { return (url, []) }
        let single = url[..<hostsStart] + first + url[authorityEnd...]
        return (String(single), hosts.dropFirst().map(String.init))
    }

    /// The TLS settings of ``tls``, or `nil` for no TLS.
    var tlsConfiguration: TLSConfiguration? {
        var config = TLSConfiguration.makeClientConfiguration()
        switch tls {
        case .disable: return nil
        case .require: config.certificateVerification = .none
        case .verifyFull:
            config.certificateVerification = .fullVerification
            if let tlsCAFile { config.trustRoots = .file(tlsCAFile) }
        }
        return config
    }

    func clientConfiguration(_ server: Host) -> PostgresClient.Configuration {
        var config = PostgresClient.Configuration(
            host: server.host, port: server.port, username: username, password: password, database: database,
            tls: tlsConfiguration.map { .require($0) } ?? .disable)
        config.options.maximumConnections = max(1, maximumConnections)
        config.options.minimumConnections = min(max(0, minimumConnections), max(1, maximumConnections))
        config.options.connectTimeout = connectTimeout
        config.options.additionalStartupParameters = startupParameters
        return config
    }

    /// The session settings every connection starts with: the schema, the application's name
    /// and the statement timeout.
    var startupParameters: [(String, String)] {
        let printable = applicationName.unicodeScalars.filter { (32...126).contains($0.value) }.prefix(63)
        var parameters = [("search_path", schema), ("application_name", String(String.UnicodeScalarView(printable)))]
        if let statementTimeout {
            // Whole milliseconds, from 1 to the server's largest (Int32), saturating.
            let (seconds, attoseconds) = statementTimeout.components
            let milliseconds: Int64 =
                seconds >= Int64(Int32.max) / 1_000
                ? Int64(Int32.max) : seconds < 0 ? 1 : max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
            parameters.append(("statement_timeout", String(milliseconds)))
        }
        return parameters
    }

    /// ``connectTimeout`` in nanoseconds, saturating: it is a public var, and seconds beyond
    /// Int64's nanoseconds trapped.
    var connectTimeoutNanoseconds: Int64 {
        let (seconds, attoseconds) = connectTimeout.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || carry ? (seconds < 0 ? .min : .max) : sum
    }

    /// One connection's settings, for the connection probe.
    func connectionConfiguration(_ server: Host) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            try tlsConfiguration.map { .require(try NIOSSLContext(configuration: $0)) } ?? .disable
        var config = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: username, password: password, database: database, tls: tls)
        config.options.connectTimeout = .nanoseconds(connectTimeoutNanoseconds)
        config.options.additionalStartupParameters = startupParameters
        return config
    }
}
#endif
