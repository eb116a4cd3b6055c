#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO

/// Opens one connection outside the pool before the store starts, to name why it cannot connect.
///
/// The pool retries a failed connection with back-off until its circuit breaker trips, about a
/// minute later, and then reports `connectionCreationCircuitBreakerTripped` without the cause.
/// The probe fails within ``PostgresConfiguration/connectTimeout`` with the cause as the error's
/// kind: authentication, database, refused, host not found, timeout, TLS.
enum ConnectionProbe {
    /// Connects to `host`; with `askingWritable`, returns whether it accepts writes (is not a
    /// standby in recovery), else `true`.
    static func check(
        _ configuration: PostgresConfiguration, host: PostgresConfiguration.Host, askingWritable: Bool,
        logger: Logger
    ) async throws -> Bool {
        let target = "\(configuration.username)@\(host)/\(configuration.database)"
        do {
            let settings = try configuration.connectionConfiguration(host)
            // The connect timeout bounds TCP; the deadline also bounds TLS, authentication and the query.
            return try await PostgresBookingService.withDeadline(configuration.connectTimeout) {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.next(), configuration: settings, id: 0, logger: logger
                ).get()
                defer { Task { try? await connection.close() } }
                guard askingWritable else { return true }
                let rows = try await connection.allRows("SELECT pg_is_in_recovery()", logger: logger)
                return try rows.first?.decode(Bool.self) == false
            }
        } catch {
            throw classify(error, target: target, timeout: configuration.connectTimeout)
        }
    }

    /// The store error that names why connecting to `target` failed.
    static func classify(_ error: any Error, target: String, timeout: Duration) -> PostgresStoreError {
        func failure(_ kind: PostgresStoreError.Kind, _ why: String, state: String? = nil) -> PostgresStoreError {
            PostgresStoreError(kind, operation: "connect to \(target)", sqlState: state, message: why)
        }
        if let abandoned = error as? AbandonedCall, case .deadline = abandoned {
            return failure(.connectTimeout, "no connection within \(timeout)")
        }
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return failure(.tlsFailed, "TLS: \(error)")
        }
        guard let error = error as? PSQLError else { return failure(.database, String(describing: error)) }
        if let state = error.serverInfo?[.sqlState] {
            let message = error.serverInfo?[.message] ?? "SQLSTATE \(state)"
            switch state {
            // invalid_password; invalid_authorization_specification (no such role, pg_hba refusal)
            case "28P01", "28000": return failure(.authenticationFailed, message, state: state)
            case "3D000": return failure(.databaseNotFound, message, state: state)
            default: return failure(.database, message, state: state)
            }
        }
        if error.code == .sslUnsupported {
            return failure(.tlsFailed, "the server does not accept TLS connections")
        }
        return classifyNetwork(error.underlying, target: target, timeout: timeout, fallback: error)
    }

    static func classifyNetwork(
        _ underlying: (any Error)?, target: String, timeout: Duration, fallback: PSQLError
    ) -> PostgresStoreError {
        func failure(_ kind: PostgresStoreError.Kind, _ why: String) -> PostgresStoreError {
            PostgresStoreError(kind, operation: "connect to \(target)", message: why)
        }
        switch underlying {
        case let tls as NIOSSLError: return failure(.tlsFailed, "TLS: \(tls)")
        case let tls as BoringSSLError: return failure(.tlsFailed, "TLS: \(tls)")
        case let tls as NIOSSLExtraError: return failure(.tlsFailed, "TLS: \(tls)")
        case let channel as ChannelError:
            if case .connectTimeout = channel { return failure(.connectTimeout, "no connection within \(timeout)") }
        case let connect as NIOConnectionError:
            if connect.connectionErrors.isEmpty {
                return failure(.hostNotFound, "the host name \(connect.host) could not be resolved")
            }
            let errors = connect.connectionErrors.map { $0.error }
            if errors.contains(where: { ($0 as? IOError)?.errnoCode == ECONNREFUSED }) {
                return failure(.connectionRefused, "connection refused (is the server running on that port?)")
            }
            return failure(.connectionFailed, errors.map { String(describing: $0) }.joined(separator: "; "))
        case let io as IOError where io.errnoCode == ECONNREFUSED:
            return failure(.connectionRefused, "connection refused (is the server running on that port?)")
        case let address as SocketAddressError:
            return failure(.hostNotFound, "the host name could not be resolved: \(address)")
        default: break
        }
        return failure(.connectionFailed, String(reflecting: underlying ?? fallback))
    }
}
#endif
