/// Indexes ordered by a time (a booking's start, a hold's expiry), so that "those that still
/// count at `now`" is a binary search and a walk over the ones that do, not a scan of a user's
/// whole history.
struct TimeOrdered: Sendable {
    struct Entry: Comparable, Sendable {
        var time: Int64
        var index: Int

        static func < (a: Entry, b: Entry) -> Bool { (a.time, a.index) < (b.time, b.index) }
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    /// The position of the first entry for which `isAfter` holds; `isAfter` must be false, then
    /// true, along the order.
    /// - Complexity: O(log *n*).
    func first(where isAfter: (Entry) -> Bool) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(entries[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// - Complexity: O(log *n*) to find, O(*n*) to move the later entries (O(1) at the end).
    mutating func insert(_ entry: Entry) { entries.insert(entry, at: first { $0 > entry }) }

    mutating func remove(_ entry: Entry) {
        let i = first { $0 >= entry }
        if i < entries.count, entries[i] == entry { entries.remove(at: i) }
    }

    /// The entries whose time is late enough for `counts` (false, then true, along the order).
    func counting(_ counts: (Int64) -> Bool) -> ArraySlice<Entry> {
        entries[first { counts($0.time) }...]
    }
}
