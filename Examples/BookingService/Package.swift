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
        .package(path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        // Identity: the bearer token's middleware (hummingbird-auth) and its verification (jwt-kit).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Already in Hummingbird's graph; named for the types used directly (Logger, Channel,
        // HTTPParserError, HTTPRequestPart).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        .executableTarget(
            name: "BookingService",
            dependencies: [
                .product(name: "SlotScheduler", package: root),
                .product(name: "SlotSimulation", package: root),
                .product(name: "SlotSchedulerJournal", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        )
    ]
)
