#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the lock behind each shard and stripe of ``Scheduler``.
///
/// Why not `Synchronization.Mutex`: on Linux with Swift 6.3, ThreadSanitizer does not see
/// `Mutex` as a lock and reports races between correctly locked accesses, which would make the
/// sanitizer run of the concurrency tests meaningless. A pthread mutex costs the same here (an
/// uncontended lock is one atomic operation) and TSan understands it.
///
/// `@unchecked Sendable`: `value` is only read or written inside `withLock`, between
/// `pthread_mutex_lock` and `pthread_mutex_unlock`, so no two threads touch it at once.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
