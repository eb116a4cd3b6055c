import SlotScheduler
import Synchronization

extension JournalStore {
    /// Returns once every byte before `target` is durable (or throws the write failure).
    ///
    /// Leader/follower: if no write is under way the caller leads one (``flush(upTo:)``); else
    /// it suspends until a leader's sync covers `target`, or it is handed the next write.
    ///
    /// With group commit, after a sync the next write waits for the callers that sync released
    /// to come back with their next command (``State/turn(for:gathering:)``): the last of them
    /// to arrive leads, on its own thread, or after half the last sync the waiter with the
    /// lowest target is handed the write (``endGathering(_:)``). Without that, a new leader wrote
    /// at once what had arrived during the last sync while the callers it released were still on
    /// their way back: they waited a whole extra sync, and 8 callers split into groups that
    /// alternated, 4.7 to 7.2 records a sync instead of 8.
    func waitDurable(_ target: UInt64) async throws {
        var turn = try state.withLock { s throws(JournalError) in try s.turn(for: target, gathering: groupCommit) }
        while true {
            switch turn {
            case .done: return
            case .lead:
                // Let callers that are ready to run append first, so this write carries them too:
                // on a pool with one free thread, a leader that never suspends would write one
                // record at a time while the others wait to run.
                if groupCommit { await Task.yield() }
                flush(upTo: target)
                turn = try state.withLock { s throws(JournalError) in try s.turn(for: target, gathering: groupCommit) }
            case .wait:
                turn = try await withCheckedThrowingContinuation { continuation in
                    let now = state.withLock { s -> Result<Turn, JournalError>? in
                        do throws(JournalError) {
                            let turn = try s.turn(for: target, gathering: groupCommit)
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

    /// Ends the wait for released callers that the sync numbered `token` began, if it is still
    /// on: the waiter with the lowest target leads the next write (or the next caller does).
    /// The clock only bounds the wait; nothing written depends on it.
    func endGathering(_ token: UInt64) {
        let next = state.withLock { s -> Waiter? in
            guard s.gatherToken == token, !s.gatherExpired else { return nil }
            s.gatherExpired = true
            guard !s.leading, let lowest = s.waiters.indices.min(by: { s.waiters[$0].target < s.waiters[$1].target })
            else { return nil }
            s.leading = true
            return s.waiters.remove(at: lowest)
        }
        next?.continuation.resume(returning: .lead)
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
        let (ready, next, gathering) = state.withLock { s in
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
            s.gatherToken &+= 1
            s.gatherExpired = !groupCommit || s.gatherLimit == .zero || s.arrivals >= s.expected
            var next: Waiter?
            if s.gatherExpired, let lowest = waiting.indices.min(by: { waiting[$0].target < waiting[$1].target }) {
                next = waiting.remove(at: lowest)
                s.leading = true
            }
            s.waiters = waiting
            return (ready, next, s.gatherExpired ? nil : (token: s.gatherToken, limit: s.gatherLimit))
        }
        if let gathering {
            Task { [self] in
                try? await Task.sleep(for: gathering.limit)
                endGathering(gathering.token)
            }
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
