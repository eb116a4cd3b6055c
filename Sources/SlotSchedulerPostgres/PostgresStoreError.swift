/// An error of the PostgreSQL store itself, never a refusal (refusals are thrown as
/// `Rejection`).
public struct PostgresStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// The database URL could not be parsed.
        case invalidURL
        /// Neither a URL nor `SLOTSCHEDULER_DATABASE_URL` was given.
        case missingConfiguration
        /// The database holds a different catalog than the one this instance was started with.
        case catalogMismatch
        /// A policy or catalog stored in the database could not be read back.
        case invalidStoredConfiguration
        /// The server refused a statement for a reason that is not a booking rule.
        case database
        /// The connection failed while a write without a request id was in flight: it may or may
        /// not have been applied. Repeat it with a request id to find out safely.
        case outcomeUnknown
        /// Serialization failures, deadlocks or lost connections persisted through every retry.
        case retriesExhausted
        /// A row did not have the expected shape.
        case unexpectedRow
        /// The server refused the user name or password (or has no such role).
        case authenticationFailed
        /// The server has no database of that name.
        case databaseNotFound
        /// Nothing listens on that host and port.
        case connectionRefused
        /// The host name could not be resolved.
        case hostNotFound
        /// No connection within ``PostgresConfiguration/connectTimeout``.
        case connectTimeout
        /// The TLS handshake failed: the server does not offer TLS, or its certificate is not
        /// trusted or does not name the host.
        case tlsFailed
        /// The connection failed for another network reason (unreachable, reset).
        case connectionFailed
        /// Every configured host is a read-only standby.
        case readOnly
        /// The scenario's or caller's policy differs from the one the database enforces.
        case policyMismatch
        /// The schema lacks migrations or a catalog, and this instance may not change it
        /// (``PostgresConfiguration/schemaChanges`` is `.never`).
        case schemaNotReady
        /// The store is shutting down (``PostgresBookingService/shutdown()``, or a graceful
        /// shutdown of its `ServiceGroup`): the call was not sent.
        case shuttingDown
    }

    public var kind: Kind
    /// What the store was doing ("reserve", "migrate v1", ...).
    public var operation: String
    /// The SQLSTATE, when the server sent one.
    public var sqlState: String?
    public var message: String

    public init(_ kind: Kind, operation: String, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.operation = operation
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        "PostgreSQL store: \(kind.rawValue) during \(operation)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
            + ": \(message)"
    }
}
