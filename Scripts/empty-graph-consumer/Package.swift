// swift-tools-version: 6.1
import PackageDescription

// A package that depends on this repository the way a backend team would, for the SlotScheduler
// product alone. Scripts/check-empty-graph.sh (run by CI) asserts that it resolves no other
// package: the library has no dependencies, and neither must its importers' graphs.

/// The repository's package identity: a path dependency is named after its folder.
let root = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { $0.lowercased() } ?? ""

let package = Package(
    name: "EmptyGraphConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(
            name: "EmptyGraphConsumer",
            dependencies: [.product(name: "SlotScheduler", package: root)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
