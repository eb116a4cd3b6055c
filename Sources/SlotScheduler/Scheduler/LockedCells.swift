internal import CPrefetch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed number of values, each guarded by its own lock: the shards and stripes of
/// ``Scheduler``.
///
/// Each cell (lock word, then value) starts on its own 128-byte boundary and fills whole
/// 128-byte blocks, so two cells never share a cache line (nor an adjacent-line prefetch pair):
/// threads working on different cells do not slow each other down (no false sharing). The cells
/// live in one raw allocation reached by index, not in objects, so a call retains and releases
/// nothing, and the value is reached through a pointer, so there is no dynamic exclusivity
/// check (`swift_beginAccess`) on each access: callgrind showed both costing more than the
/// two locks themselves (see the Concurrency article).
///
/// **The lock** is one atomic word per cell: taken by a compare-and-swap (acquiring), released
/// by a plain store (releasing), and waited for by spinning a little, then yielding the CPU.
/// A critical section here is a few hundred instructions, so a waiter spins far less than a
/// sleep and a wake-up would cost: with `pthread_mutex_t`, a thread that found the lock held
/// went to sleep in the kernel (`futex`) and the holder had to wake it (another system call),
/// which on 2 cores made two threads slower than one. The release is a plain store on x86,
/// where a mutex's unlock is a second locked instruction that waits for every pending store.
/// ThreadSanitizer sees the acquiring and releasing atomics as the synchronisation they are
/// (the `ConcurrencyTests` run under it), which it does not for `Synchronization.Mutex` on
/// Linux.
///
/// `@unchecked Sendable`: a value is only read or written inside ``withLock(_:_:)`` or
/// ``withLockIfFree(_:_:)``, between taking and releasing its own lock word, so no two threads
/// touch it at once; the hints are atomics, written under their cell's lock; the allocations
/// are immutable after `init` and freed in `deinit`, when no call can be running.
final class LockedCells<Value: PrefetchHinting>: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// Each value's ``PrefetchHinting/prefetchHint``, published after every use of its lock for
    /// threads that do not hold it: apart from the cells, and written only when it changes, so
    /// these lines stay shared between the cores.
    private let hints: UnsafeMutablePointer<Atomic<UInt>>
    /// Bytes from one cell to the next: a multiple of ``lineSize``.
    private let cellSize: Int
    /// Bytes from a cell's start (its lock word) to its value.
    private let valueOffset: Int
    let count: Int

    /// Twice a 64-byte cache line: x86 prefetches lines in adjacent pairs.
    static var lineSize: Int { 128 }

    /// Spins (with the CPU's spin hint) before yielding the CPU to whoever holds the lock.
    private static var spinsBeforeYield: Int { 100 }

    init(_ values: [Value]) {
        count = values.count
        let lockSize = MemoryLayout<Atomic<UInt32>>.size
        let valueAlign = MemoryLayout<Value>.alignment
        valueOffset = (lockSize + valueAlign - 1) / valueAlign * valueAlign
        let used = valueOffset + MemoryLayout<Value>.size
        cellSize = (used + Self.lineSize - 1) / Self.lineSize * Self.lineSize
        base = .allocate(
            byteCount: max(1, cellSize * values.count),
            alignment: max(Self.lineSize, MemoryLayout<Atomic<UInt32>>.alignment, valueAlign))
        hints = .allocate(capacity: max(1, values.count))
        for (i, value) in values.enumerated() {
            let cell = base + i * cellSize
            cell.bindMemory(to: Atomic<UInt32>.self, capacity: 1).initialize(to: Atomic(0))
            (cell + valueOffset).bindMemory(to: Value.self, capacity: 1).initialize(to: value)
            (hints + i).initialize(to: Atomic(value.prefetchHint))
        }
    }

    deinit {
        for i in 0..<count {
            let cell = base + i * cellSize
            cell.assumingMemoryBound(to: Atomic<UInt32>.self).deinitialize(count: 1)
            (cell + valueOffset).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        }
        hints.deinitialize(count: count)
        hints.deallocate()
        base.deallocate()
    }

    var indices: Range<Int> { 0..<count }

    @inline(__always)
    private func lockWord(_ index: Int) -> UnsafeMutablePointer<Atomic<UInt32>> {
        precondition(index >= 0 && index < count)
        return (base + index &* cellSize).assumingMemoryBound(to: Atomic<UInt32>.self)
    }

    @inline(__always)
    private func value(_ index: Int) -> UnsafeMutablePointer<Value> {
        (base + (index &* cellSize &+ valueOffset)).assumingMemoryBound(to: Value.self)
    }

    @inline(__always)
    private static func tryLock(_ word: UnsafeMutablePointer<Atomic<UInt32>>) -> Bool {
        word.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    /// Waits for a lock another thread holds, then takes it.
    @inline(never)
    private static func lockContended(_ word: UnsafeMutablePointer<Atomic<UInt32>>) {
        var spins = 0
        while true {
            // Read before trying, so waiting does not write the holder's cache line.
            if word.pointee.load(ordering: .relaxed) == 0, tryLock(word) { return }
            if spins < spinsBeforeYield {
                spins += 1
                slot_scheduler_spin_pause()
            } else {
                sched_yield()
            }
        }
    }

    /// Runs `body` with exclusive access to value `index` (which must be in ``indices``).
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ index: Int, _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let word = lockWord(index)
        if !Self.tryLock(word) { Self.lockContended(word) }
        defer { word.pointee.store(0, ordering: .releasing) }
        // Not in the `defer`: there it became an out-of-line generic function (callgrind: 36
        // instructions per reservation). A throwing body leaves the hint as it was: harmless.
        let result = try body(&value(index).pointee)
        publishHint(index)
        return result
    }

    /// Runs `body` with exclusive access to value `index` if no other thread holds its lock;
    /// otherwise returns `nil` at once, without running it.
    @inline(__always)
    func withLockIfFree<Result>(_ index: Int, _ body: (inout Value) -> Result) -> Result? {
        let word = lockWord(index)
        guard word.pointee.load(ordering: .relaxed) == 0, Self.tryLock(word) else { return nil }
        defer { word.pointee.store(0, ordering: .releasing) }
        let result = body(&value(index).pointee)
        publishHint(index)
        return result
    }

    /// Value `index`'s last published ``PrefetchHinting/prefetchHint``, without its lock: it
    /// may be out of date by the time it is used, which is harmless for a prefetch (the CPU
    /// never faults on one) and for nothing else may it be used.
    @inline(__always)
    func hint(_ index: Int) -> UInt {
        precondition(index >= 0 && index < count)
        return hints[index].load(ordering: .relaxed)
    }

    /// Asks the CPU for value `index`'s lock word (for writing where the target can say so, see
    /// `CPrefetch`), without waiting.
    @inline(__always)
    func prefetchLock(_ index: Int) { slot_scheduler_prefetch(UnsafeRawPointer(lockWord(index))) }

    /// Called with the lock held.
    @inline(__always)
    private func publishHint(_ index: Int) {
        guard Value.hasPrefetchHint else { return }
        let hint = value(index).pointee.prefetchHint
        if hints[index].load(ordering: .relaxed) != hint { hints[index].store(hint, ordering: .relaxed) }
    }
}
