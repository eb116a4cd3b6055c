/// Latencies counted by bucket (their top 9 significant bits and their magnitude), so exact
/// percentiles need no list of them: a value at a given rank is found by a second pass that keeps
/// only the latencies of its bucket (values within 1/256 of each other).
struct Latencies {
    /// Counts of latencies in 0..<2^32 ns by ``bucket(_:)``.
    private var buckets = [Int](repeating: 0, count: 24 * 512)
    /// Those below 0 and those of 2^32 ns (4.29 s) or more, kept whole (few).
    private var below: [Int64] = []
    private var above: [Int64] = []
    private(set) var count = 0

    /// Buckets in the order of their values: a value below 512 is its own; above, the top 9
    /// significant bits and how far they were shifted.
    static func bucket(_ value: UInt32) -> Int {
        guard value >= 512 else { return Int(value) }
        let shift = 32 - value.leadingZeroBitCount - 9
        return shift << 9 | Int(value >> shift)
    }

    mutating func add(_ nanoseconds: Int64) {
        count += 1
        if let value = UInt32(exactly: nanoseconds) {
            buckets[Self.bucket(value)] += 1
        } else if nanoseconds < 0 {
            below.append(nanoseconds)
        } else {
            above.append(nanoseconds)
        }
    }

    /// The latencies at `ranks` (0-based, in ascending order of latency) of the values added,
    /// which `again` must give once more, in any order.
    /// - Complexity: O(n + m log m) for m latencies in the buckets of the ranks.
    func values(at ranks: [Int], rereading again: some Sequence<Int64>) -> [Int64] {
        let below = below.sorted()
        let above = above.sorted()
        let inRange = count - below.count - above.count
        // Per rank: a value already known, or (bucket, rank within it).
        var known = [Int64?](repeating: nil, count: ranks.count)
        var wanted = [(bucket: Int, rank: Int)](repeating: (0, 0), count: ranks.count)
        for (k, rank) in ranks.enumerated() where rank >= 0 {
            if rank < below.count {
                known[k] = below[rank]
            } else if rank - below.count >= inRange {
                known[k] = above[rank - below.count - inRange]
            } else {
                var rest = rank - below.count
                var bucket = 0
                while rest >= buckets[bucket] {
                    rest -= buckets[bucket]
                    bucket += 1
                }
                wanted[k] = (bucket, rest)
            }
        }
        let needed = Set(ranks.indices.filter { known[$0] == nil && ranks[$0] >= 0 }.map { wanted[$0].bucket })
        guard !needed.isEmpty else { return known.map { $0 ?? 0 } }
        var members: [Int: [UInt32]] = [:]
        for nanoseconds in again {
            if let value = UInt32(exactly: nanoseconds), needed.contains(Self.bucket(value)) {
                members[Self.bucket(value), default: []].append(value)
            }
        }
        for bucket in needed { members[bucket]?.sort() }
        return ranks.indices.map { k in
            if let value = known[k] { return value }
            let list = members[wanted[k].bucket] ?? []
            return list.indices.contains(wanted[k].rank) ? Int64(list[wanted[k].rank]) : 0
        }
    }
}

/// A binary min-heap of times.
struct MinHeap {
    private var items: [Int64] = []

    var min: Int64? { items.first }

    mutating func insert(_ value: Int64) {
        items.append(value)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeMin() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left] < items[smallest] { smallest = left }
            if right < items.count && items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
