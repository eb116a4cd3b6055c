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
                // Let callers that are ready to run append first, so this write carries them too
                // (with few threads, a leader that never suspends would write one record at a time).
                await Task.yield()
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

    /// As leader: writes the buffer and syncs once, then wakes the callers it covered and hands
    /// leadership to the waiter with the lowest target still uncovered, if any.
    ///
    /// With ``groupCommit`` off it writes only the first buffered record: one sync per record,
    /// the baseline (the leader leads again until its own record is out). `nil` writes everything.
    func flush(upTo target: UInt64?) {
        let (batch, end, file) = state.withLock { s in
            let start = s.appended - UInt64(s.buffer.count)
            let end = groupCommit || target == nil ? s.appended : s.recordEnds.first ?? s.appended
            let count = Int(end - start)
            let batch = Array(s.buffer[0..<count])
            s.buffer.removeFirst(count)
            s.recordEnds.removeAll { $0 <= end }
            return (batch, end, s.file)
        }
        var failure: JournalError?
        if !batch.isEmpty {
            do throws(JournalError) {
                guard let file else { throw JournalError(.closed, file: files.path, message: "the store is closed") }
                try file.write(batch)
                try file.sync(metadata: false)
            } catch { failure = error }
        }
        let (ready, next) = state.withLock { s in
            s.leading = false
            if let failure { s.failure = s.failure ?? failure }
            if s.failure == nil {
                s.durable = max(s.durable, end)
                if !batch.isEmpty { s.syncs += 1 }
            }
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
