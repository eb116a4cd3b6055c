import Foundation
import PostgresNIO

/// Where the store's database is: parsed from `postgres://user[:password]@host[:port]/database`
/// (optionally `?schema=name`) or from the environment variable `SLOTSCHEDULER_DATABASE_URL`.
public struct PostgresConfiguration: Hashable, Sendable {
    /// The environment variable ``fromEnvironment(schema:)`` reads.
    public static let environmentVariable = "SLOTSCHEDULER_DATABASE_URL"

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    /// The schema the tables live in; it is created if missing. Lowercase letters, digits, `_`.
    public var schema: String
    /// Maximum connections of this instance's pool.
    public var maximumConnections: Int = 16
    /// Attempts per operation on serialization failures, deadlocks and lost connections.
    public var maximumAttempts: Int = 8
    /// How long one attempt may wait for the server (including waiting for a pooled connection)
    /// before it is abandoned and treated as a lost connection.
    public var attemptTimeout: Duration = .seconds(10)

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

    /// Parses a `postgres://` or `postgresql://` URL. A `schema` argument overrides `?schema=`.
    public init(url: String, schema: String? = nil) throws(PostgresStoreError) {
        func invalid(_ why: String) -> PostgresStoreError {
            PostgresStoreError(.invalidURL, operation: "configure", message: "\(why) in '\(Self.redacted(url))'")
        }
        guard let parts = URLComponents(string: url) else { throw invalid("not a URL") }
        guard parts.scheme == "postgres" || parts.scheme == "postgresql" else {
            throw invalid("scheme must be postgres:// or postgresql://")
        }
        guard let host = parts.host, !host.isEmpty else { throw invalid("missing host") }
        guard let user = parts.user, !user.isEmpty else { throw invalid("missing user name") }
        let database = String(parts.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw invalid("missing database name") }
        let querySchema = parts.queryItems?.first { $0.name == "schema" }?.value
        try self.init(
            host: host, port: parts.port ?? 5432, username: user.removingPercentEncoding ?? user,
            password: parts.password.map { $0.removingPercentEncoding ?? $0 }, database: database,
            schema: schema ?? querySchema ?? "public")
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
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? "(unprintable URL)"
    }

    var clientConfiguration: PostgresClient.Configuration {
        var config = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
        config.options.maximumConnections = maximumConnections
        config.options.additionalStartupParameters = [("search_path", schema)]
        return config
    }
}
