/// A ``SlotBook``'s booking records (or its holds), indexed by *record index* (the order they were
/// made in), of which the first ``base`` were released and are no longer read.
///
/// Stored in chunks of ``chunkSize`` records, chunk *k* holding indices `k << chunkShift` on:
/// a release frees every chunk whose records are all released, so the memory of a long-running
/// book follows the records it holds, not its peak or its age (with one array, the kept records
/// moved to the front of storage that kept its capacity, and a year's run held 1.18x-1.22x the
/// resident bytes of a month's, the retention benchmark). Dropping chunks from the front keeps
/// every later index, so cells, journal entries and booking ids that name a record by index stay
/// valid across a release. A chunk behind the first record still held is freed too once all its
/// records are released (``free(chunkOf:)``): a booking made for a date far ahead does not keep
/// every record made after it. A read of a freed chunk's record gives ``StoredRecord/released``.
struct RecordColumn<Record: StoredRecord>: Sendable {
    static var chunkShift: Int { 12 }
    static var chunkSize: Int { 1 << chunkShift }
    static var chunkMask: Int { chunkSize - 1 }

    /// The last chunk, which appends go to, and the record index of its first slot (slots
    /// before a restore's first record hold placeholders).
    private var tail = Column<Record>()
    private var tailStart = 0
    /// Records `0..<base` were released and are not read (those of a chunk not yet freed may
    /// still be stored).
    private(set) var base = 0
    /// The full chunks before the tail, from chunk number `firstChunk` on.
    private var full: [Column<Record>] = []
    private var firstChunk = 0

    /// The record index the next record gets: every record ever made, released ones included.
    @inline(__always)
    var count: Int { tailStart &+ tail.count }

    /// The stored records' indices.
    var indices: Range<Int> { base..<count }

    /// No record is stored past the released ones.
    var isEmpty: Bool { count == base }

    /// Records held in memory: those of the chunks not freed, released or not.
    /// - Complexity: O(chunks).
    var storedCount: Int { full.reduce(tail.count) { $0 &+ $1.count } }

    /// - Complexity: O(1): a comparison, then one array read (the tail) or two.
    @inline(__always)
    subscript(index: Int) -> Record {
        get {
            if index >= tailStart { return tail[index &- tailStart] }
            let chunk = (index &>> Self.chunkShift) &- firstChunk
            return full[chunk].isEmpty ? Record.released : full[chunk][index & Self.chunkMask]
        }
        set {
            if index >= tailStart {
                tail[index &- tailStart] = newValue
            } else {
                // A freed chunk's records are released: nothing changes them any more.
                let chunk = (index &>> Self.chunkShift) &- firstChunk
                if !full[chunk].isEmpty { full[chunk][index & Self.chunkMask] = newValue }
            }
        }
    }

    @inline(__always)
    mutating func append(_ record: Record) {
        if tail.count == Self.chunkSize { startChunk() }
        tail.append(record)
    }

    /// Moves the full tail to `full` and starts the next chunk, with the room of one `prefault` made.
    @inline(never)
    private mutating func startChunk() {
        var next = spare.popLast() ?? Column()
        next.reserveCapacity(Self.chunkSize)
        swap(&next, &tail)
        full.append(next)
        tailStart &+= Self.chunkSize
    }

    /// Empty chunks with their room reserved and faulted in (``prefault(_:with:)``).
    private var spare: [Column<Record>] = []

    /// Reserves room for `capacity` more records in whole chunks, faulting the pages in now.
    mutating func prefault(_ capacity: Int, with filler: Record) {
        tail.prefault(Self.chunkSize &- tail.count, with: filler)
        let chunks = (capacity &- (Self.chunkSize &- tail.count) &+ Self.chunkMask) &>> Self.chunkShift
        while spare.count < chunks {
            var room = Column<Record>()
            room.prefault(Self.chunkSize, with: filler)
            spare.append(room)
        }
    }

    /// Stops reading records `base..<index`, which must all be released, and frees each full
    /// chunk that holds released records only.
    /// - Complexity: O(chunks stored), a few per million records.
    mutating func drop(before index: Int) {
        guard index > base else { return }
        base = index
        let free = min(full.count, (index &>> Self.chunkShift) &- firstChunk)
        guard free > 0 else { return }
        full.removeFirst(free)
        firstChunk &+= free
    }

    /// The indices of each full chunk still stored (the tail excepted), from ``base`` on.
    var storedChunks: [Range<Int>] {
        full.indices.compactMap { k in
            guard !full[k].isEmpty else { return nil }
            let first = (k &+ firstChunk) &<< Self.chunkShift
            return max(first, base)..<(first &+ Self.chunkSize)
        }
    }

    /// The indices of the records still stored, from ``base`` on: ``storedChunks``, then the tail.
    var storedRanges: [Range<Int>] { storedChunks + [max(tailStart, base)..<count] }

    /// Frees the full chunk holding `index` (one of ``storedChunks``), whose records must all be
    /// released: later reads of them give ``StoredRecord/released``.
    mutating func free(chunkOf index: Int) {
        precondition(index >= base && index < tailStart)
        full[(index &>> Self.chunkShift) &- firstChunk] = Column()
    }

    /// Skips record indices up to `index` (a restore whose snapshot lacks released records), as
    /// released ones: `filler` (read as ``StoredRecord/released``) in the tail's chunk and the
    /// chunk of `index`, whole chunks between left empty, which reads them as released too.
    /// - Complexity: O(``chunkSize`` + skipped chunks), not O(skipped records).
    mutating func skip(to index: Int, filling filler: Record) {
        guard index > count else { return }
        if isEmpty {
            full.removeAll()
            firstChunk = index &>> Self.chunkShift
            tailStart = firstChunk &<< Self.chunkShift
            tail.removeAll(keepingCapacity: true)
            base = index
        } else {
            // Bounded by `chunkSize`: the tail is one chunk.
            while tail.count < Self.chunkSize, count < index { tail.append(filler) }
            guard count < index else { return }
            full.append(tail)
            tail = Column()
            tailStart &+= Self.chunkSize
            // One empty chunk per whole chunk skipped.
            while tailStart &+ Self.chunkSize <= index {
                full.append(Column())
                tailStart &+= Self.chunkSize
            }
        }
        tail.append(contentsOf: repeatElement(filler, count: index &- tailStart))
    }
}

/// A record a ``RecordColumn`` stores: with a value that stands for a released one.
protocol StoredRecord: Sendable, BitwiseCopyable {
    /// A record its book reads as released (dated before every date), and as nobody's.
    static var released: Self { get }
}
