// swift-tools-version: 6.1
import PackageDescription

// The benchmarks, in their own package so that ordo-one/benchmark and its dependencies are
// neither resolved nor built by `swift build`, `swift test` or `swift run schedule-sim` in the
// root package. Run from the repository root:
//   swift package --package-path Benchmarks benchmark --target SchedulerBenchmarks

/// The root package's identity: a path dependency is named after its folder, whatever the clone
/// is called.
let root = Context.packageDirectory.split(separator: "/").dropLast().last.map { $0.lowercased() } ?? ""

let package = Package(
    name: "SchedulerBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The benchmark plugin wants each benchmark in a folder whose parent is named Benchmarks.
        .executableTarget(
            name: "SchedulerBenchmarks",
            dependencies: [
                .product(name: "SlotScheduler", package: root), .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "SchedulerBenchmarks",
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The one-call paths on a fixed workload, for `valgrind --tool=callgrind` (see its main.swift).
        // Its Workload files are links to the benchmarks' own.
        .executableTarget(
            name: "AttemptProfile",
            dependencies: [.product(name: "SlotScheduler", package: root)],
            path: "AttemptProfile",
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
