/// The names of a store's files: `journal-<generation>.log`, `snapshot-<generation>.snap`
/// (written as `snapshot-<generation>.tmp` first), and `LOCK`. Generations are 16 hex digits,
/// so names sort in generation order.
enum FileNames {
    static func journal(_ generation: UInt64) -> String { "journal-\(hex(generation)).log" }
    static func snapshot(_ generation: UInt64) -> String { "snapshot-\(hex(generation)).snap" }
    static func snapshotTemp(_ generation: UInt64) -> String { "snapshot-\(hex(generation)).tmp" }

    /// The generation of a journal's name (``journal(_:)``), if it is one.
    static func journalGeneration(_ name: String) -> UInt64? {
        generation(of: name, prefix: "journal-", suffix: ".log")
    }
    /// The generation of a snapshot's name (``snapshot(_:)``), if it is one.
    static func snapshotGeneration(_ name: String) -> UInt64? {
        generation(of: name, prefix: "snapshot-", suffix: ".snap")
    }
    /// Whether `name` is an unfinished snapshot's (``snapshotTemp(_:)``).
    static func isSnapshotTemp(_ name: String) -> Bool {
        generation(of: name, prefix: "snapshot-", suffix: ".tmp") != nil
    }

    static func hex(_ n: UInt64) -> String {
        let digits = String(n, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    /// The generation in a name of the form `prefix<16 hex digits>suffix`, if it is one.
    static func generation(of name: String, prefix: String, suffix: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count == prefix.count + 16 + suffix.count else {
            return nil
        }
        return UInt64(name.dropFirst(prefix.count).prefix(16), radix: 16)
    }
}
