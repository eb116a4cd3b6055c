extension Scheduler {
    /// Makes independent reservation attempts, each as ``attempt(_:for:at:)`` would, taking each
    /// station shard's lock once for all the batch's attempts on it.
    ///
    /// Attempts are decided shard by shard (from the shard of the batch's first attempt on,
    /// wrapping around, except that shards another thread holds at that moment come last), and
    /// in batch order within a shard;
    /// each is atomic, the batch as a whole is not. Under the shard lock the attempts' memory is
    /// prefetched a window at a time, as in ``Ledger/attempt(_:at:)-(ArraySlice<(SlotRef,UserID)>,_)``.
    /// - Returns: one result per attempt, in batch order.
    /// - Complexity: O(*n* + shards) for the grouping, then O(1) per attempt.
    public func attempt(_ batch: ArraySlice<(SlotRef, UserID)>, at now: Instant) -> [ReservationAttempt] {
        let (starts, order) = groupedByShard(batch)
        var results = [ReservationAttempt](
            repeating: ReservationAttempt(reason: .slotTaken, start: 0), count: batch.count)
        // Results are written through a buffer pointer by closures passed straight to the locks
        // (non-escaping): a closure kept in a local captured `results` in a box, and every write
        // ran a dynamic exclusivity check (callgrind: about 210 instructions per attempt).
        results.withUnsafeMutableBufferPointer { results in
            // Each batch starts at its first attempt's shard: threads running batches at the
            // same time all starting at shard 0 met there, then leapfrogged each other shard
            // after shard, each step on the shard the other had just written (`Paired:
            // Scheduler.attempt, batches of 1024, 2 threads ÷ 1 thread`: 1.21-1.34 before,
            // 1.49-1.59 after). A shard another thread holds is left for a second pass rather
            // than waited for.
            var busy: [Int] = []
            let first = batch.first.map { shard(of: $0.0.station) } ?? 0
            for step in shards.indices {
                let s = first + step < shards.count ? first + step : first + step - shards.count
                let group = order[starts[s]..<starts[s + 1]]
                guard !group.isEmpty else { continue }
                let done: Void? = shards.withLockIfFree(s) { slots in
                    decide(group, of: batch, at: now, slots: &slots, into: results)
                }
                if done == nil { busy.append(s) }
            }
            for s in busy {
                shards.withLock(s) { slots in
                    decide(order[starts[s]..<starts[s + 1]], of: batch, at: now, slots: &slots, into: results)
                }
            }
        }
        return results
    }

    /// The batch's positions grouped by shard: the positions of shard *s* are
    /// `order[starts[s]..<starts[s + 1]]`, in batch order (a counting sort: stable, no
    /// comparisons).
    private func groupedByShard(_ batch: ArraySlice<(SlotRef, UserID)>) -> (starts: [Int], order: [Int]) {
        var starts = [Int](repeating: 0, count: shards.count + 1)
        for (ref, _) in batch { starts[shard(of: ref.station) + 1] += 1 }
        for s in shards.indices { starts[s + 1] += starts[s] }
        var order = [Int](repeating: 0, count: batch.count)
        var next = starts
        for (offset, (ref, _)) in batch.enumerated() {
            let s = shard(of: ref.station)
            order[next[s]] = offset
            next[s] += 1
        }
        return (starts, order)
    }

    /// How many attempts ahead a batch asks for the stripe lock it will take. With two threads,
    /// the other one wrote a stripe's lock line last about half the time; asked for a few
    /// attempts early, the line moves while those attempts are decided, not while the lock waits
    /// for it. Sooner, for a whole window, it moved back before its use
    /// (`Paired: Scheduler.attempt, batches of 1024, 2 threads ÷ 1 thread` went down). At 3,
    /// alternating with none, four rounds: 1.81, 1.75, 1.63, 1.32 against 1.54, 1.49, 1.43, 1.29.
    static var stripeLockLead: Int { 3 }

    /// Decides the attempts at `positions` (offsets into `batch`, all on the shard whose book is
    /// `slots`, held by the caller), a window at a time: first the window's memory is asked
    /// for, then each attempt decided under its user's stripe lock (``stripeLockLead`` attempts
    /// after that lock was asked for).
    private func decide(
        _ positions: ArraySlice<Int>, of batch: ArraySlice<(SlotRef, UserID)>, at now: Instant,
        slots: inout SlotBook, into results: UnsafeMutableBufferPointer<ReservationAttempt>
    ) {
        let base = batch.startIndex
        var window = positions.startIndex
        while window < positions.endIndex {
            let end = min(window + Ledger.batchWindow, positions.endIndex)
            // Whether each attempt's ref is this catalog's, decided once: bit k - window.
            var owned: UInt64 = 0
            for k in window..<end {
                let (ref, user) = batch[base + positions[k]]
                guard rules.catalog.owns(ref) else { continue }
                owned |= 1 &<< UInt64(k &- window)
                slots.prefetch(ref)
                prefetchState(of: user, stripe: stripe(of: user))
            }
            for k in window..<end {
                let (ref, user) = batch[base + positions[k]]
                if k &+ Self.stripeLockLead < positions.endIndex {
                    stripes.prefetchLock(stripe(of: batch[base + positions[k &+ Self.stripeLockLead]].1))
                }
                guard owned & (1 &<< UInt64(k &- window)) != 0 else {
                    results[positions[k]] = ReservationAttempt(reason: .unknownStation, start: 0)
                    continue
                }
                results[positions[k]] = stripes.withLock(stripe(of: user)) { users in
                    Decisions.reserve(
                        ref, user: user, requestID: nil, reminder: nil, now: now.secondsSinceEpoch,
                        rules: rules, slots: &slots, users: &users)
                }
            }
            window = end
        }
    }
}
