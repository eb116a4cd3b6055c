import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A few threads of the store's own that write and sync the journal, so that a blocking
/// `fdatasync` never holds one of the few threads of Swift's cooperative pool, and several
/// syncs can be in flight at once (``JournalStore/serveSyncs(_:)``).
///
/// Each `post()` wakes one thread, which runs `body` once. `stop()` ends the threads once they
/// are idle; they are detached, and the last one to end frees the semaphore.
///
/// `@unchecked Sendable`: the semaphore is a POSIX one (thread-safe); `stopping` is atomic.
final class SyncThreads: @unchecked Sendable {
    private let semaphore: UnsafeMutablePointer<sem_t>
    private let stopping = Atomic<Bool>(false)
    let count: Int

    init(count: Int) {
        self.count = count
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Starts the threads; each runs `body` with its number (0..<count) once per ``post()``.
    /// Returns false if a thread could not be started.
    func start(body: @escaping @Sendable (Int) -> Void) -> Bool {
        for index in 0..<count {
            let run: @Sendable () -> Void = { [self] in
                while wait() { body(index) }
            }
            let context = Unmanaged.passRetained(Box(run)).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { context in
                    guard let context else { return nil }
                    Unmanaged<Box>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }, context)
            if started != 0 {
                Unmanaged<Box>.fromOpaque(context).release()
                return false
            }
            pthread_detach(thread)
        }
        return true
    }

    /// Wakes one thread to run the body once.
    func post() { sem_post(semaphore) }

    /// Ends every thread once it is idle (a body under way finishes first).
    func stop() {
        stopping.store(true, ordering: .releasing)
        for _ in 0..<count { sem_post(semaphore) }
    }

    /// Waits for a post; false once stopping.
    private func wait() -> Bool {
        while sem_wait(semaphore) != 0 {}
        return !stopping.load(ordering: .acquiring)
    }

    private final class Box {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
