/// The names of a store's files: `journal-<generation>.log`, `snapshot-<generation>.snap`
/// (written as `snapshot-<generation>.tmp` first), and `LOCK`. Generations are 16 hex digits,
/// so names sort in generation order.
enum FileNames {
    static func journal(_ generation: UInt64) -> String { "journal-\(hex(generation)).log" }
    static func snapshot(_ generation: UInt64) -> String { "snapshot-\(hex(generation)).snap" }
    static func snapshotTemp(_ generation: UInt64) -> String { "snapshot-\(hex(generation)).tmp" }

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
