import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import UnixSignals

/// The floors the example service's speed is measured against (`Scripts/speed.sh`): the same
/// Hummingbird server, answering `POST /reservations` with no booking rules, no identity and no
/// store, only what each mode does:
/// - `constant`: reads the body and answers 201 with a constant body;
/// - `append:FILE`: appends the body as a line to FILE and `fdatasync`s it before answering, one
///   request at a time (no group commit: what a durable answer costs done the plain way);
/// - `insert:URL`: one `INSERT` of the body into a table on the PostgreSQL database at URL,
///   committed (synchronously, the server's default) before answering.
@main
struct SpeedBaselines: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SpeedBaselines", abstract: "Baseline endpoints for the example service's speed table.")

    @Option(help: "constant, append:FILE or insert:POSTGRES_URL.")
    var mode: String

    @Option(help: "The TCP port to listen on (0 picks a free one).")
    var port: Int = 0

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    func run() async throws {
        let logger = Logger(label: "SpeedBaselines")
        let router = Router()
        var services: [any Service] = []
        switch mode {
        case "constant":
            router.post("/reservations") { request, _ -> Response in
                _ = try await request.body.collect(upTo: 1 << 16)
                return Self.created
            }
        case let text where text.hasPrefix("append:"):
            let log = try AppendLog(path: String(text.dropFirst("append:".count)))
            router.post("/reservations") { request, _ -> Response in
                var line = try await request.body.collect(upTo: 1 << 16)
                line.writeString("\n")
                try await log.append(Array(line.readableBytesView))
                return Self.created
            }
        case let text where text.hasPrefix("insert:"):
            let client = PostgresClient(
                configuration: try Self.database(String(text.dropFirst("insert:".count))), backgroundLogger: logger)
            services.append(client)
            router.post("/reservations") { request, _ -> Response in
                let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
                try await client.query("INSERT INTO speed_baseline (body) VALUES (\(body))")
                return Self.created
            }
            services.append(TableSetup(client: client))
        default:
            throw ValidationError("--mode must be constant, append:FILE or insert:URL, not \(mode)")
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "SpeedBaselines"),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(
                    Data("listening on \(host):\(channel.localAddress?.port ?? port)\n".utf8))
            }, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) }
                    + [.init(service: app, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// `postgres://user[:password]@host[:port]/database`, without TLS (a local benchmark).
    static func database(_ url: String) throws -> PostgresClient.Configuration {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
            let host = parts.host, let user = parts.user, parts.path.count > 1
        else { throw ValidationError("--mode insert:URL needs a postgres://user@host:port/database URL, not \(url)") }
        return PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: user, password: parts.password,
            database: String(parts.path.dropFirst()), tls: .disable)
    }

    static let created = Response(
        status: .created, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: #"{"id":"1"}"#)))
}

/// The table the `insert` mode writes, created once the client runs; then waits for shutdown.
struct TableSetup: Service {
    let client: PostgresClient

    func run() async throws {
        try await client.query(
            "CREATE TABLE IF NOT EXISTS speed_baseline (id bigserial PRIMARY KEY, body text NOT NULL)")
        try await gracefulShutdown()
    }
}

/// A file appended to and `fdatasync`ed one line at a time, on a queue of its own (the
/// blocking calls stay off the server's threads).
final class AppendLog: Sendable {
    let descriptor: Int32
    let queue = DispatchQueue(label: "SpeedBaselines.append")

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ValidationError("cannot open \(path): \(String(cString: strerror(errno)))") }
    }

    func append(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                let written = bytes.withUnsafeBytes { write(self.descriptor, $0.baseAddress, $0.count) }
                if written == bytes.count, fdatasync(self.descriptor) == 0 {
                    continuation.resume()
                } else {
                    continuation.resume(throwing: ValidationError("append: \(String(cString: strerror(errno)))"))
                }
            }
        }
    }
}
