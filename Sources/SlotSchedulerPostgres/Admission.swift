#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Synchronization

/// The store calls in flight, so that a shutdown lets them finish while it refuses new ones.
final class Admission: Sendable {
    private struct State {
        var inFlight = 0
        var closing = false
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// How many calls are in flight.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Admits one call, or answers `false` once ``close()`` has begun.
    func enter() -> Bool {
        state.withLock { s in
            guard !s.closing else { return false }
            s.inFlight += 1
            return true
        }
    }

    /// Ends a call ``enter()`` admitted.
    func leave() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.inFlight -= 1
            guard s.closing, s.inFlight == 0 else { return [] }
            defer { s.drained = [] }
            return s.drained
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Refuses every call from now on, and returns once the calls in flight have ended.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                s.closing = true
                guard s.inFlight > 0 else { return true }
                s.drained.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
#endif
