// swift-tools-version: 6.1
import PackageDescription

/// An example HTTP service on top of SlotScheduler: its own package, so the library's graph stays
/// empty (Scripts/check-empty-graph.sh). See README.md.
/// The root package's identity: a path dependency is named after its folder, whatever the clone
/// is called.
let root = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { $0.lowercased() } ?? ""

let package = Package(
    name: "BookingService",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The PostgreSQL store and the observed stores are behind the library's traits.
        .package(path: "../..", traits: ["Postgres", "Observability"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // Identity: the bearer token's middleware (hummingbird-auth) and its verification (jwt-kit).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // Chargers (--ocpp): OCPP 2.0.1 over a WebSocket on the HTTP port.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Operating: /metrics in Prometheus's text format, and the service's lifecycle.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Traces (--otlp-endpoint): exported over OTLP/HTTP only, so gRPC is not built.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Already in Hummingbird's graph; named for the types used directly (Logger, Channel,
        // HTTPParserError, HTTPRequestPart, WebSocketErrorCode).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The baseline endpoints of the speed table (SpeedBaselines): a bare INSERT; and the
        // service's kept Idempotency-Key answers, shared by the instances on one PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "BookingService",
            dependencies: [
                .product(name: "SlotScheduler", package: root),
                .product(name: "SlotSimulation", package: root),
                .product(name: "SlotSchedulerJournal", package: root),
                .product(name: "SlotSchedulerPostgres", package: root),
                .product(name: "SlotSchedulerObservability", package: root),
                .product(name: "SlotSchedulerOCPP", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
        // What Scripts/speed.sh measures the service against: the same server with no rules.
        .executableTarget(
            name: "SpeedBaselines",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
