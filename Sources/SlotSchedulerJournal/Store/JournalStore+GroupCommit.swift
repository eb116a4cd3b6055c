import SlotScheduler
import Synchronization

extension JournalStore {
    /// Returns once every byte before `target` is durable (or throws the write failure).
    ///
    /// The caller registers as a waiter and, if no sync thread has taken or will take its bytes,
    /// wakes an idle one (``State/claimSyncThread()``). It is resumed by the first sync that
    /// began after its bytes were written.
    func waitDurable(_ target: UInt64) async throws {
        let now = state.withLock { s -> Result<Void, JournalError>? in
            if s.durable >= target { return .success(()) }
            if let failure = s.failure { return .failure(failure) }
            return nil
        }
        if let now { return try now.get() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (now, post) = state.withLock { s -> (Result<Void, JournalError>?, Bool) in
                if s.durable >= target { return (.success(()), false) }
                if let failure = s.failure { return (.failure(failure), false) }
                s.waiters.append(Waiter(target: target, continuation: continuation))
                return (nil, s.claimSyncThread())
            }
            if post { syncThreads.post() }
            if let now { continuation.resume(with: now.mapError { $0 as any Error }) }
        }
    }

    /// On sync thread `thread`, once claimed: takes the buffer, writes it, syncs, wakes the
    /// callers it covered; and again while bytes wait that no other thread will take.
    ///
    /// **Pipelined group commit.** Several threads can be between their write and the end of
    /// their sync at once: while one sync is in flight, the next thread writes what arrived
    /// since and issues its own. Writes happen in buffer order (``writeOrder``); a sync covers
    /// every byte whose write returned before it began, so when it ends everything before its
    /// own write's end is durable once every earlier sync has succeeded too (later syncs may end
    /// first: ``State/syncEnded(_:)``).
    /// Each thread syncs through its own descriptor (``State/syncHandles``), so that a
    /// write-back error is reported to every sync that began after the failed write, not only
    /// to the first to look (Linux reports an error once per open file description).
    ///
    /// With ``groupCommit`` off there is one thread, and it writes only the first buffered
    /// record: one sync per record, the baseline.
    func serveSyncs(thread: Int) {
        var again = true
        while again {
            let (batch, end, file, handle, failed) = writeOrder.withLock { _ in takeAndWrite(thread: thread) }
            var failure = failed
            var synced = false
            var opened: (any JournalFile)?
            if failure == nil, !batch.isEmpty, let file {
                do throws(JournalError) {
                    if handle == nil { opened = try file.syncHandle() }
                    let file = handle ?? opened ?? file
                    try file.sync(metadata: false)
                    synced = true
                } catch { failure = error }
            }
            let ready = state.withLock { s in
                s.syncing -= 1
                if let opened { s.syncHandles[thread] = opened }
                if let failure { s.failure = s.failure ?? failure }
                if synced, s.failure == nil {
                    s.syncEnded(end)
                    s.syncs += 1
                }
                s.spare = batch
                s.spare.removeAll(keepingCapacity: true)
                let ready = s.releaseWaiters()
                again =
                    s.failure == nil && !s.exclusive && !s.exclusiveWanted && s.claimed == 0 && s.appended > s.taken
                    && !s.waiters.isEmpty
                if again { s.claimed += 1 } else { s.idle += 1 }
                return ready
            }
            for (w, failure) in ready {
                if let failure { w.continuation.resume(throwing: failure) } else { w.continuation.resume() }
            }
        }
    }

    /// Under ``writeOrder``: takes the buffer (its first record only without group commit) and
    /// writes it to the current journal; returns it with the thread's descriptor for syncing.
    private func takeAndWrite(thread: Int) -> (
        batch: [UInt8], end: UInt64, file: (any JournalFile)?, handle: (any JournalFile)?, failure: JournalError?
    ) {
        let (batch, end, file, handle) = state.withLock { s in
            s.claimed -= 1
            s.syncing += 1
            guard s.failure == nil else { return ([UInt8](), s.taken, s.file, s.syncHandles[thread]) }
            let start = s.taken
            let end = groupCommit ? s.appended : s.recordEnds.first ?? s.appended
            let count = Int(end - start)
            var batch = s.spare
            s.spare = []
            if count == s.buffer.count {
                swap(&batch, &s.buffer)  // the whole buffer, without copying it
            } else {
                batch.append(contentsOf: s.buffer[0..<count])
                s.buffer.removeFirst(count)
            }
            s.recordEnds.removeAll { $0 <= end }
            if count > 0 { s.inFlight.append((end, false)) }
            return (batch, end, s.file, s.syncHandles[thread])
        }
        guard !batch.isEmpty else { return (batch, end, file, handle, nil) }
        guard let file else {
            return (batch, end, nil, handle, JournalError(.closed, file: files.path, message: "the store is closed"))
        }
        do throws(JournalError) {
            try file.write(batch)
        } catch {
            // Before the next thread writes (after this one, at a position now unknown).
            state.withLock { s in s.failure = s.failure ?? error }
            return (batch, end, file, handle, error)
        }
        return (batch, end, file, handle, nil)
    }

    /// Waits until no sync thread is writing or syncing and takes the file alone (to close or
    /// checkpoint); no thread is woken until ``endExclusive()``.
    func becomeExclusive() async {
        while true {
            let took = state.withLock { s in
                if s.exclusive { return false }
                s.exclusiveWanted = true
                guard s.claimed == 0, s.syncing == 0 else { return false }
                s.exclusive = true
                return true
            }
            if took { return }
            try? await Task.sleep(for: .microseconds(200))
        }
    }

    /// Gives the file back to the sync threads: wakes the callers that are durable now (or
    /// fails them), and a thread for bytes still to write.
    func endExclusive() {
        let (ready, post) = state.withLock { s in
            s.exclusive = false
            s.exclusiveWanted = false
            let ready = s.releaseWaiters()
            return (ready, !s.waiters.isEmpty && s.claimSyncThread())
        }
        if post { syncThreads.post() }
        for (w, failure) in ready {
            if let failure { w.continuation.resume(throwing: failure) } else { w.continuation.resume() }
        }
    }
}

extension JournalStore.State {
    /// Removes the waiters that are durable now (or all, with their failure, after a failure).
    mutating func releaseWaiters() -> [(JournalStore.Waiter, JournalError?)] {
        var ready: [(JournalStore.Waiter, JournalError?)] = []
        var waiting: [JournalStore.Waiter] = []
        for w in waiters {
            if durable >= w.target {
                ready.append((w, nil))
            } else if let failure {
                ready.append((w, failure))
            } else {
                waiting.append(w)
            }
        }
        waiters = waiting
        return ready
    }
}
