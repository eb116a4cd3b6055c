#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Synchronization

/// The deadlines of the store calls in flight (``PostgresBookingService/withDeadline(_:_:)``),
/// watched by one task for the whole process instead of a timer task per call.
///
/// A timer task per call (`Task { try await Task.sleep(for: limit) ... }`, cancelled when the
/// call returns) cost a task, a scheduled timer and a wake-up for every reservation; without it
/// the example service's PostgreSQL configuration served 19 % more requests a second
/// (`docs/performance/`). Here a call arms an entry (a lock, an insert) and disarms it when it
/// returns; a watcher wakes every ``tick`` while entries are armed, expires those past their
/// deadline, and ends when none are left (the next arm starts another). A deadline is therefore
/// met within one tick late, never early.
///
/// - Complexity: O(1) amortized to arm and disarm; each tick, O(entries armed).
final class DeadlineWatch: Sendable {
    /// How late a deadline may be noticed.
    static let tick = Duration.milliseconds(20)
    static let shared = DeadlineWatch()

    private struct Entry {
        var deadline: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var next: UInt64 = 0
        var watching = false
    }

    private let state = Mutex(State())

    /// Arms `expire` to run once `limit` has passed, unless ``disarm(_:)`` comes first; returns
    /// the entry's number.
    func arm(after limit: Duration, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = ContinuousClock.now.advanced(by: limit)
        let (id, start) = state.withLock { s -> (UInt64, Bool) in
            s.next &+= 1
            s.entries[s.next] = Entry(deadline: deadline, expire: expire)
            defer { s.watching = true }
            return (s.next, !s.watching)
        }
        if start { Task.detached { await self.watch() } }
        return id
    }

    /// Forgets entry `id` (its call returned); nothing if it already expired.
    func disarm(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// How many entries are armed (for tests).
    var armed: Int { state.withLock { $0.entries.count } }

    /// Wakes every ``tick``, runs the expired entries' actions outside the lock, and returns once
    /// no entry is armed.
    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let now = ContinuousClock.now
            let (due, done) = state.withLock { s -> ([Entry], Bool) in
                var due: [Entry] = []
                for (id, entry) in s.entries where entry.deadline <= now {
                    due.append(entry)
                    s.entries.removeValue(forKey: id)
                }
                if s.entries.isEmpty { s.watching = false }
                return (due, !s.watching)
            }
            for entry in due { entry.expire() }
            if done { return }
        }
    }
}
#endif
