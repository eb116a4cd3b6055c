// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Only what is used is built: a package that depends on `SlotScheduler` resolves no other
/// package (CI checks it with Scripts/empty-graph-consumer). So `schedule-sim` is not declared as
/// a product (a root package's executable targets get one anyway: `swift run schedule-sim`
/// works here, and its argument parser stays out of importers' graphs), the PostgreSQL store
/// needs the `Postgres` trait, and the benchmarks are their own package (Benchmarks/Package.swift).
let postgres: TargetDependencyCondition? = .when(traits: ["Postgres"])
let observability: TargetDependencyCondition? = .when(traits: ["Observability"])
let asyncHTTP: TargetDependencyCondition? = .when(traits: ["AsyncHTTP"])

let package = Package(
    name: "SlotScheduler",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SlotScheduler", targets: ["SlotScheduler"]),
        .library(name: "SlotSimulation", targets: ["SlotSimulation"]),
        // Empty unless the trait is on: `.package(url: …, traits: ["Postgres"])`.
        .library(name: "SlotSchedulerPostgres", targets: ["SlotSchedulerPostgres"]),
        .library(name: "SlotSchedulerJournal", targets: ["SlotSchedulerJournal"]),
        // Empty unless the trait is on: `.package(url: …, traits: ["Observability"])`.
        .library(name: "SlotSchedulerObservability", targets: ["SlotSchedulerObservability"]),
        // Bookings ↔ chargers over OCPP 2.0.1, transport-free; no package dependencies.
        .library(name: "SlotSchedulerOCPP", targets: ["SlotSchedulerOCPP"]),
    ],
    traits: [
        .trait(
            name: "Postgres",
            description: """
                The PostgreSQL store (SlotSchedulerPostgres, its tests, schedule-sim --store postgres://…). \
                Off by default: `swift build --traits Postgres`.
                """),
        .trait(
            name: "AsyncHTTP",
            description: """
                schedule-sim run --target sends its requests with AsyncHTTPClient (on NIO) instead of \
                Foundation's URLSession: eight times the requests a second here. Off by default.
                """),
        .trait(
            name: "Observability",
            description: """
                Any store observed (SlotSchedulerObservability): swift-log, swift-metrics and \
                swift-distributed-tracing around every call; the journal store as a ServiceLifecycle \
                Service. Off by default.
                """),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Already in postgres-nio's graph; named for the store's logging (LogHandler in its tests).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Also in postgres-nio's graph: the store is a ServiceLifecycle `Service`.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The Observability trait's (swift-metrics is also in postgres-nio's graph).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // The AsyncHTTP trait's: schedule-sim's HTTP driver (swift-nio is in its graph).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The booking rules. No package dependencies, on purpose.
        // A one-function C shim: the CPU's prefetch hint, which Swift does not expose.
        .target(name: "CPrefetch"),
        .target(name: "SlotScheduler", dependencies: ["CPrefetch"], swiftSettings: swiftSettings),
        // The simulator; its charger faults follow the OCPP bridge's rule (SlotSchedulerOCPP.SocketFault).
        .target(
            name: "SlotSimulation", dependencies: ["SlotScheduler", "SlotSchedulerOCPP"], swiftSettings: swiftSettings),
        .target(
            name: "SlotSchedulerPostgres",
            dependencies: [
                "SlotScheduler", .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Logging", package: "swift-log", condition: postgres),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: postgres),
                .product(name: "Metrics", package: "swift-metrics", condition: postgres),
            ],
            // The migrations' SQL, one file per migration, readable by a DBA and runnable by other
            // tools; compiled into the library (no resource bundle to ship beside a server binary).
            resources: (1...15).map { .embedInCode("Migrations/v\($0).sql") },
            swiftSettings: swiftSettings
        ),
        // Logs, metrics and traces around any store's calls.
        .target(
            name: "SlotSchedulerObservability",
            dependencies: [
                "SlotScheduler", "SlotSchedulerJournal",
                .product(name: "Logging", package: "swift-log", condition: observability),
                .product(name: "Metrics", package: "swift-metrics", condition: observability),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: observability),
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "SlotSchedulerOCPP", dependencies: ["SlotScheduler"], swiftSettings: swiftSettings),
        // A durable journal for one instance; the C library only, no package dependencies.
        .target(name: "SlotSchedulerJournal", dependencies: ["SlotScheduler"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "schedule-sim",
            dependencies: [
                "SlotSimulation", .target(name: "SlotSchedulerPostgres", condition: postgres), "SlotSchedulerJournal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: asyncHTTP),
                .product(name: "NIOCore", package: "swift-nio", condition: asyncHTTP),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: asyncHTTP),
                .product(name: "NIOPosix", package: "swift-nio", condition: asyncHTTP),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "journal-bench", dependencies: ["SlotSchedulerJournal"], swiftSettings: swiftSettings),
        .testTarget(name: "SchedulerTests", dependencies: ["SlotScheduler"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PropertyTests",
            dependencies: [
                "SlotScheduler", "SlotSimulation", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["README.md"],
            resources: [.copy("Golden")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ObservabilityTests",
            dependencies: [
                "SlotSchedulerObservability", "SlotSchedulerJournal",
                .product(name: "Logging", package: "swift-log", condition: observability),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: observability),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: observability),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: observability),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "OCPPTests", dependencies: ["SlotSchedulerOCPP", "SlotScheduler"], swiftSettings: swiftSettings),
        .testTarget(name: "SimulationTests", dependencies: ["SlotSimulation"], swiftSettings: swiftSettings),
        .testTarget(
            name: "JournalTests", dependencies: ["SlotSchedulerJournal", "SlotSimulation", "journal-crash-child"],
            swiftSettings: swiftSettings),
        // The process the journal's SIGKILL test starts and kills.
        .executableTarget(
            name: "journal-crash-child", dependencies: ["SlotSchedulerJournal", "SlotSimulation"],
            path: "Tests/JournalCrashChild", swiftSettings: swiftSettings),
        .testTarget(
            name: "PostgresTests",
            dependencies: [
                "SlotSchedulerPostgres", "SlotSimulation",
                // PostgresQuery, for calls as code of earlier migrations made them (EarlierCode.swift).
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Logging", package: "swift-log", condition: postgres),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: postgres),
                .product(name: "Metrics", package: "swift-metrics", condition: postgres),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: postgres),
            ],
            swiftSettings: swiftSettings),
    ]
)

// CI only (.ci/run sets SLOTSCHEDULER_CI_GRAPH=1): the example service (Examples/BookingService)
// and the benchmarks (Benchmarks), each its own package for those who use it, built in this
// package's graph, so that what they share with the tests (swift-nio, BoringSSL, PostgresNIO,
// swift-argument-parser, SlotScheduler itself) is compiled once: the example's own build
// compiled 1157 CPU seconds a second time. Needs the Postgres and Observability traits. Their
// dependencies and targets are those of their own Package.swift files;
// Scripts/check-ci-graph.py checks that they agree.
if Context.environment["SLOTSCHEDULER_CI_GRAPH"] == "1" {
    package.dependencies += [
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ]
    package.targets += [
        .executableTarget(
            name: "BookingService",
            dependencies: [
                "SlotScheduler", "SlotSimulation", "SlotSchedulerJournal", "SlotSchedulerPostgres",
                "SlotSchedulerObservability", "SlotSchedulerOCPP",
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
            path: "Examples/BookingService/Sources/BookingService",
            swiftSettings: swiftSettings
        ),
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
            path: "Examples/BookingService/Sources/SpeedBaselines",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SchedulerBenchmarks",
            dependencies: ["SlotScheduler", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/SchedulerBenchmarks",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "AttemptProfile", dependencies: ["SlotScheduler"], path: "Benchmarks/AttemptProfile",
            swiftSettings: swiftSettings),
    ]
}
