#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed number of values, each guarded by its own `pthread_mutex_t`: the shards and stripes
/// of ``Scheduler``.
///
/// Each cell (mutex, then value) starts on its own 128-byte boundary and fills whole 128-byte
/// blocks, so two cells never share a cache line (nor an adjacent-line prefetch pair): threads
/// working on different cells do not slow each other down (no false sharing). The cells live
/// in one raw allocation reached by index, not in objects, so a call retains and releases
/// nothing, and the value is reached through a pointer, so there is no dynamic exclusivity
/// check (`swift_beginAccess`) on each access: callgrind showed both costing more than the
/// two locks themselves (see the Concurrency article).
///
/// Why not `Synchronization.Mutex`: on Linux with Swift 6.3, ThreadSanitizer does not see
/// `Mutex` as a lock and reports races between correctly locked accesses, which would make the
/// sanitizer run of the concurrency tests meaningless. A pthread mutex costs the same here (an
/// uncontended lock is one atomic operation) and TSan understands it.
///
/// `@unchecked Sendable`: a value is only read or written inside ``withLock(_:_:)``, between
/// `pthread_mutex_lock` and `pthread_mutex_unlock` of its own mutex, so no two threads touch it
/// at once; the allocation is immutable after `init` and freed in `deinit`, when no call can be
/// running.
final class LockedCells<Value>: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// Bytes from one cell to the next: a multiple of ``lineSize``.
    private let cellSize: Int
    /// Bytes from a cell's start (its mutex) to its value.
    private let valueOffset: Int
    let count: Int

    /// Twice a 64-byte cache line: x86 prefetches lines in adjacent pairs.
    static var lineSize: Int { 128 }

    init(_ values: [Value]) {
        count = values.count
        let mutexSize = MemoryLayout<pthread_mutex_t>.size
        let valueAlign = MemoryLayout<Value>.alignment
        valueOffset = (mutexSize + valueAlign - 1) / valueAlign * valueAlign
        let used = valueOffset + MemoryLayout<Value>.size
        cellSize = (used + Self.lineSize - 1) / Self.lineSize * Self.lineSize
        base = .allocate(
            byteCount: max(1, cellSize * values.count),
            alignment: max(Self.lineSize, MemoryLayout<pthread_mutex_t>.alignment, valueAlign))
        for (i, value) in values.enumerated() {
            let cell = base + i * cellSize
            let mutex = cell.bindMemory(to: pthread_mutex_t.self, capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
            (cell + valueOffset).bindMemory(to: Value.self, capacity: 1).initialize(to: value)
        }
    }

    deinit {
        for i in 0..<count {
            let cell = base + i * cellSize
            let mutex = cell.assumingMemoryBound(to: pthread_mutex_t.self)
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            (cell + valueOffset).assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        }
        base.deallocate()
    }

    var indices: Range<Int> { 0..<count }

    /// Runs `body` with exclusive access to value `index` (which must be in ``indices``).
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ index: Int, _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        precondition(index >= 0 && index < count)
        let cell = base + index &* cellSize
        let mutex = cell.assumingMemoryBound(to: pthread_mutex_t.self)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&(cell + valueOffset).assumingMemoryBound(to: Value.self).pointee)
    }
}
