import SlotScheduler
import Synchronization

extension JournalStore {
    /// Returns once every byte before `target` is durable (or throws the write failure).
    ///
    /// Leader/follower: if no write is under way the caller leads one (``flush(upTo:)``); else
    /// it suspends until a leader's sync covers `target`, or a leader hands it the next write.
    func waitDurable(_ target: UInt64) async throws {
        var turn = try state.withLock { s throws(JournalError) in try s.turn(for: target) }
        while true {
            switch turn {
            case .done: return
            case .lead:
                if groupCommit { await gather() }
                flush(upTo: target)
                turn = try state.withLock { s throws(JournalError) in try s.turn(for: target) }
            case .wait:
                turn = try await withCheckedThrowingContinuation { continuation in
                    let now = state.withLock { s -> Result<Turn, JournalError>? in
                        do throws(JournalError) {
                            let turn = try s.turn(for: target)
                            if turn != .wait { return .success(turn) }
                            s.waiters.append(Waiter(target: target, continuation: continuation))
                            return nil
                        } catch { return .failure(error) }
                    }
                    if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
                }
            }
        }
    }

    /// As leader with group commit, before writing: lets the callers the last sync released
    /// come back with their next command, so that this write carries them too. It suspends
    /// until the last of them arrives (``State/arrive()`` resumes it) or half the time the last
    /// write and sync took has passed.
    ///
    /// Without it a new leader writes at once what arrived during the last sync, while those
    /// that sync just released are still on their way back: they wait a whole extra sync, and
    /// the callers split into groups that alternate, each write carrying part of them. (A leader
    /// that polls with `Task.yield()` instead keeps them from running on a small thread pool.)
    /// The clock only bounds the wait; nothing written depends on it.
    func gather() async {
        let wait = state.withLock { s -> (token: UInt64, limit: Duration)? in
            guard s.expected > s.arrivals, s.gatherLimit > .zero else { return nil }
            s.gatherToken &+= 1
            return (s.gatherToken, s.gatherLimit)
        }
        guard let wait else {
            // Still let callers that are ready to run append first: on a pool with one free
            // thread, a leader that never suspends would write one record at a time.
            await Task.yield()
            return
        }
        Task { [self] in
            try? await Task.sleep(for: wait.limit)
            let gatherer = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard s.gatherToken == wait.token else { return nil }
                s.gatherExpired = true
                defer { s.gatherer = nil }
                return s.gatherer
            }
            gatherer?.resume()
        }
        await withCheckedContinuation { (gatherer: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s in
                if s.arrivals >= s.expected || (s.gatherExpired && s.gatherToken == wait.token) { return true }
                s.gatherer = gatherer
                return false
            }
            if now { gatherer.resume() }
        }
        state.withLock { s in
            s.gatherToken &+= 1  // a timer still pending finds nothing to end
            s.gatherExpired = false
        }
    }

    /// As leader: writes the buffer and syncs once, then wakes the callers it covered and hands
    /// leadership to the waiter with the lowest target still uncovered, if any.
    ///
    /// With ``groupCommit`` off it writes only the first buffered record: one sync per record,
    /// the baseline (the leader leads again until its own record is out). `nil` writes everything.
    func flush(upTo target: UInt64?) {
        let (batch, end, file) = state.withLock { s in
            s.arrivals = 0
            let start = s.appended - UInt64(s.buffer.count)
            let end = groupCommit || target == nil ? s.appended : s.recordEnds.first ?? s.appended
            let count = Int(end - start)
            var batch = s.spare
            if count == s.buffer.count {
                swap(&batch, &s.buffer)  // the whole buffer, without copying it
            } else {
                batch.append(contentsOf: s.buffer[0..<count])
                s.buffer.removeFirst(count)
            }
            s.recordEnds.removeAll { $0 <= end }
            return (batch, end, s.file)
        }
        let clock = ContinuousClock()
        let began = clock.now
        var failure: JournalError?
        if !batch.isEmpty {
            do throws(JournalError) {
                guard let file else { throw JournalError(.closed, file: files.path, message: "the store is closed") }
                try file.write(batch)
                try file.sync(metadata: false)
            } catch { failure = error }
        }
        let took = clock.now - began
        let (ready, next) = state.withLock { s in
            s.leading = false
            if let failure { s.failure = s.failure ?? failure }
            if s.failure == nil {
                s.durable = max(s.durable, end)
                if !batch.isEmpty {
                    s.syncs += 1
                    s.gatherLimit = min(took / 2, .milliseconds(5))
                }
            }
            s.spare = batch
            s.spare.removeAll(keepingCapacity: true)
            var ready: [(Waiter, JournalError?)] = []
            var waiting: [Waiter] = []
            for w in s.waiters {
                if s.durable >= w.target {
                    ready.append((w, nil))
                } else if let failure = s.failure {
                    ready.append((w, failure))
                } else {
                    waiting.append(w)
                }
            }
            // Everyone this write released (its leader too) comes back, and everyone still waiting.
            s.expected = ready.count + waiting.count + (target == nil ? 0 : 1)
            var next: Waiter?
            if let lowest = waiting.indices.min(by: { waiting[$0].target < waiting[$1].target }) {
                next = waiting.remove(at: lowest)
                s.leading = true
            }
            s.waiters = waiting
            return (ready, next)
        }
        for (w, failure) in ready {
            if let failure { w.continuation.resume(throwing: failure) } else { w.continuation.resume(returning: .done) }
        }
        next?.continuation.resume(returning: .lead)
    }

    /// Waits until no write is under way and takes the leader's role (to close or checkpoint).
    func becomeLeader() async {
        while true {
            let took = state.withLock { s in
                if s.leading { return false }
                s.leading = true
                return true
            }
            if took { return }
            try? await Task.sleep(for: .microseconds(200))
        }
    }
}
