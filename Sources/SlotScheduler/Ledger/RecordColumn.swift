/// A ``SlotBook``'s booking records, indexed by *record index* (the order they were made in),
/// of which the first ``base`` were released and no longer stored.
///
/// Dropping records from the front keeps every later index, so cells, journal entries and
/// booking ids that name a record by index stay valid across a release.
struct RecordColumn: Sendable {
    /// Records `0..<base` were released and are not stored.
    private(set) var base = 0
    private(set) var storage: [BookingRecord] = []

    /// The record index the next record gets: every record ever made, released ones included.
    @inline(__always)
    var count: Int { base &+ storage.count }

    /// The stored records' indices.
    var indices: Range<Int> { base..<count }

    @inline(__always)
    subscript(index: Int) -> BookingRecord {
        get { storage[index &- base] }
        set { storage[index &- base] = newValue }
    }

    @inline(__always)
    mutating func append(_ record: BookingRecord) { storage.append(record) }

    /// Reserves room for `capacity` records, faulting the pages in now.
    mutating func prefault(_ capacity: Int, with filler: BookingRecord) {
        storage = Array(repeating: filler, count: capacity)
        storage.removeAll(keepingCapacity: true)
    }

    /// Stops storing records `base..<index`; they must all be released.
    ///
    /// The kept records move to the front of the same storage, which keeps its capacity: a new,
    /// exactly sized copy (as before) doubled again on the next appends, into memory that was
    /// already resident, so a year's run held 1.4x to 1.9x the bytes of a month's (the retention
    /// benchmark) against 1.18x now.
    /// - Complexity: O(records kept); the caller drops only once the released prefix is a good
    ///   part of what is stored, so the moves cost O(1) per released record, amortised.
    mutating func drop(before index: Int) {
        guard index > base else { return }
        storage.removeFirst(min(storage.count, index - base))
        base = index
    }

    /// Skips record indices up to `index` with nothing stored (a restore that starts after
    /// released records); only while nothing is stored.
    mutating func skip(to index: Int) {
        precondition(storage.isEmpty && index >= base)
        base = index
    }
}
