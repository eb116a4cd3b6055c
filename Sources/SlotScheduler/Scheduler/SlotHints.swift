internal import CPrefetch
import Synchronization

/// Where each shard keeps the slots of each day, readable without the shard's lock: a call asks
/// the CPU for its slot's availability word and occupancy cell before it takes the lock, so
/// that their cache misses overlap taking the locks and the work before the slot is read.
///
/// Taking a lock is a locked instruction, which waits for every load and store before it: one
/// call's misses cannot overlap the next call's, as they do in a ``Ledger`` loop. A prefetch is
/// not ordered with it. Paired benchmarks against the commit before, alternating, three rounds:
/// `Scheduler.attempt ÷ Ledger.attempt` 0.84, 0.84, 0.85 against 0.73, 0.77; `2 threads ÷
/// 1 thread` 1.49, 1.50, 1.61 against 1.28, 1.02 (see the Concurrency article).
///
/// A hint is only ever used as the address of a prefetch, which never faults, so one that is
/// out of date (a released day's block reused, an array moved by a copy) costs a wasted
/// prefetch and nothing else. Written under the shard's lock when ``SlotBook/layoutVersion``
/// has changed since (a day got a block, or blocks moved), so the lines stay shared between
/// cores.
///
/// - Complexity: prefetching O(1); publishing O(1), or O(days with a block) once a day of the
///   shard gets a block. Memory fixed at creation: ``header`` + ``days(shards:)`` words per shard.
///
/// `@unchecked Sendable`: the allocation is immutable after `init` and freed in `deinit`;
/// every element is an atomic, and `socketCounts` and `localSocket` are never written.
final class SlotHints: @unchecked Sendable {
    /// Per shard, ``header`` words (the layout version published, the `words` and `cells` base
    /// addresses, padding to a line), then one entry per day number modulo `days`: the day in
    /// the high 32 bits, its block + 1 in the low 32 (0 when none).
    private let table: UnsafeMutablePointer<Atomic<UInt64>>
    private let shardCount: Int
    /// Entries per shard, a power of two: days further apart than that share an entry (the
    /// later day published wins; the other is not prefetched).
    private let days: Int
    /// Local sockets per shard: a block's words are that many, its cells 24 times that.
    private let socketCounts: [Int]
    /// Flat catalog socket → local socket in its shard, shared with the shards' books.
    private let localSocket: [Int32]

    /// Words before a shard's day entries: the header fills a 64-byte line of its own (the
    /// table starts on a line, and a shard's words are a multiple of 8).
    static let header = 8
    /// Never published: a book's first layout version is 0, its first block makes it 1.
    private static let unpublished = UInt64.max

    /// Day entries per shard: a power of two, 512 (more than a year of days) up to 256 shards,
    /// down to 64 at 2,048 shards and more, so the table stays within 2.2 MiB.
    static func days(shards: Int) -> Int {
        var days = 64
        while days < 512, days * max(1, shards) < 131_072 { days <<= 1 }
        return days
    }

    init(shards books: [SlotBook]) {
        shardCount = books.count
        days = Self.days(shards: books.count)
        socketCounts = books.map(\.socketCount)
        localSocket = books.first?.localSocket ?? []
        let count = max(1, books.count * (Self.header + days))
        table = UnsafeMutableRawPointer.allocate(byteCount: count * 8, alignment: 64).bindMemory(
            to: Atomic<UInt64>.self, capacity: count)
        for i in 0..<count { (table + i).initialize(to: Atomic(i % (Self.header + days) == 0 ? Self.unpublished : 0)) }
    }

    deinit {
        let count = max(1, shardCount * (Self.header + days))
        table.deinitialize(count: count)
        table.deallocate()
    }

    @inline(__always)
    private func region(_ shard: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
        precondition(shard >= 0 && shard < shardCount)
        return table + shard &* (Self.header &+ days)
    }

    @inline(__always)
    private func entry(_ day: Int32, in region: UnsafeMutablePointer<Atomic<UInt64>>) -> UnsafeMutablePointer<
        Atomic<UInt64>
    > {
        region + (Self.header &+ Int(truncatingIfNeeded: UInt32(bitPattern: day)) & (days &- 1))
    }

    /// Republishes where `book` (shard `shard`) keeps its days' slots if its layout changed
    /// since the last call. Called with the shard's lock held. `inout` though it only reads: a
    /// borrowed book, from inside the stripe's closure, was copied (every array retained).
    @inline(__always)
    func publish(_ book: inout SlotBook, shard: Int) {
        let region = region(shard)
        if region[0].load(ordering: .relaxed) != UInt64(book.layoutVersion) { republish(book, region) }
    }

    @inline(never)
    private func republish(_ book: SlotBook, _ region: UnsafeMutablePointer<Atomic<UInt64>>) {
        region[1].store(
            book.words.withUnsafeBufferPointer { UInt64(UInt(bitPattern: $0.baseAddress)) }, ordering: .relaxed)
        region[2].store(
            book.cells.withUnsafeBufferPointer { UInt64(UInt(bitPattern: $0.baseAddress)) }, ordering: .relaxed)
        // In day order: of two days sharing an entry, the later one keeps it.
        for (i, block) in book.dayBlock.enumerated() where block >= 0 {
            let day = book.firstDay &+ Int32(truncatingIfNeeded: i)
            let tagged = UInt64(UInt32(bitPattern: day)) << 32 | UInt64(UInt32(block) &+ 1)
            let entry = entry(day, in: region)
            if entry.pointee.load(ordering: .relaxed) != tagged { entry.pointee.store(tagged, ordering: .relaxed) }
        }
        region[0].store(UInt64(book.layoutVersion), ordering: .relaxed)
    }

    /// The last published addresses of `ref`'s availability word and occupancy cell in shard
    /// `shard` (which must hold its station), or `nil` when its day's block is not published.
    /// Possibly out of date: only for a prefetch.
    @inline(__always)
    func addresses(of ref: SlotRef, shard: Int) -> (word: UInt, cell: UInt)? {
        let region = region(shard)
        let tagged = entry(ref.day, in: region).pointee.load(ordering: .relaxed)
        guard tagged >> 32 == UInt64(UInt32(bitPattern: ref.day)), UInt32(truncatingIfNeeded: tagged) != 0 else {
            return nil
        }
        let block = Int(UInt32(truncatingIfNeeded: tagged)) &- 1
        let word = SlotBook.wordIndex(
            block: block, socket: Int(localSocket[Int(ref.socket)]), sockets: socketCounts[shard])
        let words = UInt(region[1].load(ordering: .relaxed))
        let cells = UInt(region[2].load(ordering: .relaxed))
        return (
            words &+ UInt(bitPattern: word &* MemoryLayout<SocketDay>.stride),
            cells
                &+ UInt(bitPattern: SlotBook.cellIndex(word: word, hour: Int(ref.hour)) &* MemoryLayout<UInt32>.stride)
        )
    }

    /// Asks the CPU for `ref`'s word and cell in shard `shard` when they are published,
    /// without its lock and without waiting; changes nothing.
    @inline(__always)
    func prefetch(_ ref: SlotRef, shard: Int) {
        guard let (word, cell) = addresses(of: ref, shard: shard) else { return }
        slot_scheduler_prefetch(UnsafeRawPointer(bitPattern: word))
        slot_scheduler_prefetch(UnsafeRawPointer(bitPattern: cell))
    }
}
