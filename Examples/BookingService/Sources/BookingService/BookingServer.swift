import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import SlotScheduler
import SlotSchedulerJournal
import SlotSimulation
import UnixSignals

/// `swift run -c release BookingService --scenario FILE --port N`: serves the scenario's
/// stations, availability and policy over HTTP (openapi.yaml), with the real clock.
@main
struct BookingServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "BookingService",
        abstract: "An example HTTP booking service on SlotScheduler: the user is a verified bearer token's subject.")

    @Option(help: "A scenario file (Scenarios/README.md): its stations, overrides and policy are served.")
    var scenario: String

    @Option(help: "The TCP port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(
        help: """
            Where bookings live: memory (lost on exit), journal:DIRECTORY (durable, created if \
            missing, one process at a time) or a postgres:// URL (durable, any number of instances \
            on one database; the URL takes what SlotSchedulerPostgres's configuration takes).
            """)
    var store: String = "memory"

    @Option(
        help: """
            How bearer tokens (JWTs) are verified: hs256:SECRET_FILE (HMAC-SHA256, a secret of at \
            least 32 bytes), jwks:JWKS_FILE (the public keys of a JSON Web Key Set, by kid), or \
            none (a demonstration: the token's sub is taken without checking its signature). The \
            user of every booking request is the token's sub; exp is always checked.
            """)
    var auth: String

    @Option(
        help: """
            Requests per second each client address may make, and its burst: RATE/BURST, or off \
            (a load test from one address). Beyond it: 429 with Retry-After. Probes and /metrics \
            are not limited.
            """)
    var addressLimit: String = "200/400"

    @Option(
        help: """
            Requests per second each verified user may make, and their burst: RATE/BURST, or off. \
            Beyond it: 429 with Retry-After.
            """)
    var userLimit: String = "20/40"

    @Option(
        help: """
            on: count requests and the store's calls, served at GET /metrics (Prometheus text). \
            off: count nothing and serve no /metrics (the baseline a load test compares with).
            """)
    var metrics: String = "on"

    @Option(help: "The OpenAPI document to serve at /openapi.yaml (default: the one beside Package.swift).")
    var openapi: String?

    @Option(
        help: """
            Close a connection after this many seconds without a whole request part (head, body \
            chunk) or a response, or this many seconds after a request head whose body has not \
            all arrived: a client trickling a request, or holding connections open and silent, \
            cannot use up the process's file descriptors.
            """)
    var idleTimeout: Int = 10

    @Option(
        help: """
            Close a connection whose client takes none of its answers for this many seconds (the \
            service's buffer of unsent bytes stays full): a client that sends requests and never \
            reads the answers cannot hold connections, their tasks and buffers forever.
            """)
    var writeTimeout: Int = 10

    @Option(
        help: """
            Keep at most this many connections open: one more closes the connection idle the \
            longest (never one whose request is being read or answered, unless its client reads \
            none of the answers). Default: the file descriptor limit, raised to its hard limit at \
            start, less a quarter of it (at most 256).
            """)
    var maxConnections: Int?

    @OptionGroup
    var chargerOptions: ChargerOptions

    @Option(
        help: """
            Export traces over OTLP/HTTP (protobuf) to this endpoint, such as \
            http://127.0.0.1:4318/v1/traces: a span per request, the store's spans under it.
            """)
    var otlpEndpoint: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0...65535, not \(port)") }
        guard (1...3_600).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout must be 1...3600 seconds, not \(idleTimeout)")
        }
        guard (1...3_600).contains(writeTimeout) else {
            throw ValidationError("--write-timeout must be 1...3600 seconds, not \(writeTimeout)")
        }
        if let maxConnections, maxConnections < 1 {
            throw ValidationError("--max-connections must be at least 1, not \(maxConnections)")
        }
        _ = try Self.limit(addressLimit, option: "--address-limit")
        _ = try Self.limit(userLimit, option: "--user-limit")
        guard ["on", "off"].contains(metrics) else {
            throw ValidationError("--metrics must be on or off, not \(metrics)")
        }
    }

    func run() async throws {
        let prepared: PreparedScenario
        do {
            prepared = try Scenario.load(path: scenario).prepare(file: scenario)
        } catch {
            throw ValidationError("\(error)")
        }
        var logger = Logger(label: "BookingService")
        logger.logLevel = .info
        // Without --metrics off, every count goes to this registry, which GET /metrics shows.
        let registry = metrics == "on" ? PrometheusCollectorRegistry() : nil
        if let registry { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) }
        var tracing: [any Service] = []
        if let otlpEndpoint {
            tracing.append(try TraceExport.bootstrap(endpoint: otlpEndpoint))
            logger.info("traces", metadata: ["otlp": "\(otlpEndpoint)"])
        }
        let store: ServiceStore
        do {
            store = try await ServiceStore.open(
                ServiceStore.Kind(self.store), prepared: prepared, file: scenario, logger: logger)
        } catch {
            throw ValidationError("\(error)")
        }
        let specPath = openapi ?? Self.bundledSpec
        guard let spec = FileManager.default.contents(atPath: specPath) else {
            throw ValidationError("cannot read the OpenAPI document \(specPath) (give --openapi PATH)")
        }
        let verifier: TokenVerifier
        do { verifier = try await TokenVerifier.make(auth) } catch { throw ValidationError(error.description) }
        let chargers: Chargers?
        do {
            chargers = try Chargers.make(chargerOptions, scenario: scenario, service: store.service, logger: logger)
        } catch {
            throw ValidationError(error.description)
        }
        var routes = Routes(store: store, openAPI: spec, metrics: registry)
        routes.chargerBridge = chargers?.bridge
        if verifier.mode == .none {
            logger.critical(
                "--auth none: bearer tokens are NOT verified; anyone can act as any user. For a demonstration only.")
        } else {
            logger.info("identity", metadata: ["tokens": "\(verifier.mode.rawValue)"])
        }
        let descriptors = DescriptorLimit.raised()
        let budget = ConnectionBudget(
            capacity: maxConnections ?? DescriptorLimit.connectionCapacity(descriptorLimit: descriptors ?? 1_024))
        logger.info(
            "connections",
            metadata: ["max": "\(budget.capacity)", "descriptorLimit": "\(descriptors.map(String.init) ?? "unknown")"])
        let http1 = http1Configuration(budget: budget, chargers: chargers)
        let app = Application(
            router: routes.router(
                authenticator: BearerTokenAuthenticator(verifier: verifier),
                limits: Routes.Limits(
                    address: try Self.limit(addressLimit, option: "--address-limit"),
                    user: try Self.limit(userLimit, option: "--user-limit"))),
            // With --ocpp, the same port also upgrades /ocpp/{stationId} to a WebSocket.
            server: chargers?.server(http1: http1, headDeadline: .seconds(Int64(idleTimeout)), budget: budget)
                ?? .http1(configuration: http1),
            configuration: .init(address: .hostname(host, port: port), serverName: "BookingService"),
            onServerRunning: { channel in
                // One line a script can wait for and read the port from (`--port 0`).
                let line = "listening on \(host):\(channel.localAddress?.port ?? port)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger)
        // On SIGTERM or SIGINT the group shuts down in reverse order: the server first
        // (answering what it has read, closing the chargers' WebSockets), then the chargers'
        // ticks, then the store (the journal closes, PostgreSQL lets its calls finish), then the
        // trace exporter (sending what it holds). A store that fails stops the server too.
        // The trace exporter stops last, after the server's last spans.
        let beforeServer: [any Service] = tracing + store.services + (chargers.map { [$0.ticker] } ?? [])
        let group = ServiceGroup(
            configuration: .init(
                services: beforeServer.map {
                    .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup)
                }
                    + [.init(service: app, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Each HTTP/1.1 connection's handlers (with `--ocpp`, around the chargers' own) and its idle
    /// timeout.
    func http1Configuration(budget: ConnectionBudget, chargers: Chargers?) -> HTTP1Channel.Configuration {
        let (idle, write) = (TimeAmount.seconds(Int64(idleTimeout)), TimeAmount.seconds(Int64(writeTimeout)))
        let handlers: @Sendable () -> [any RemovableChannelHandler] = {
            [
                LingeringClose.Placement(), CodecFront([KeepAliveMark(), HeadCheck()]),
                ConnectionShedding(budget: budget),
                RequestDeadline(limit: idle), WriteDeadline(limit: write), UnreadableRequestAnswer(),
                CloseAfterUpgrade(), ContinueAnswer(),
            ]
        }
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: chargers?.httpHandlers(around: handlers()) ?? handlers(), idleTimeout: idle)
    }

    /// Reads a rate limit: `RATE/BURST` (RATE > 0 requests a second, BURST ≥ 1 requests, both at
    /// most a million) or `off`.
    static func limit(_ text: String, option: String) throws -> RateLimit {
        if text == "off" { return .off }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let rate = Double(parts[0]), let burst = Double(parts[1]), rate.isFinite,
            burst.isFinite, rate > 0, rate <= 1_000_000, burst >= 1, burst <= 1_000_000
        else {
            throw ValidationError(
                "\(option) must be RATE/BURST (RATE > 0, BURST >= 1, at most 1000000) or off, not \(text)")
        }
        return .init(rate: rate, burst: burst)
    }

    /// `openapi.yaml` beside Package.swift, found from this source file's path at build time.
    static var bundledSpec: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml").path
    }
}
