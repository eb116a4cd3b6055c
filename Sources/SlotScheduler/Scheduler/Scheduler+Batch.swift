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
        // Counting sort of the batch's positions by shard: stable, no comparisons.
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
        var results = [ReservationAttempt](
            repeating: ReservationAttempt(reason: .slotTaken, start: 0), count: batch.count)
        let base = batch.startIndex
        let decide = { (s: Int, slots: inout SlotBook) in
            var window = starts[s]
            while window < starts[s + 1] {
                let end = min(window + Ledger.batchWindow, starts[s + 1])
                // Whether each attempt's ref is this catalog's, decided once: bit k - window.
                var owned: UInt64 = 0
                for k in window..<end where self.rules.catalog.owns(batch[base + order[k]].0) {
                    owned |= 1 &<< UInt64(k &- window)
                    let (ref, user) = batch[base + order[k]]
                    slots.prefetch(ref)
                    self.prefetchState(of: user, stripe: self.stripe(of: user))
                }
                for k in window..<end {
                    let (ref, user) = batch[base + order[k]]
                    guard owned & (1 &<< UInt64(k &- window)) != 0 else {
                        results[order[k]] = ReservationAttempt(reason: .unknownStation, start: 0)
                        continue
                    }
                    results[order[k]] = self.stripes.withLock(self.stripe(of: user)) { users in
                        Decisions.reserve(
                            ref, user: user, requestID: nil, reminder: nil, now: now.secondsSinceEpoch,
                            rules: self.rules, slots: &slots, users: &users)
                    }
                }
                window = end
            }
        }
        // Each batch starts at its first attempt's shard: threads running batches at the same
        // time all starting at shard 0 met there, then leapfrogged each other shard after shard,
        // each step on the shard the other had just written (`Paired: Scheduler.attempt, batches
        // of 1024, 2 threads ÷ 1 thread`: 1.21-1.34 before, 1.49-1.59 after). A shard another
        // thread holds is left for a second pass rather than waited for.
        var busy: [Int] = []
        let first = batch.first.map { shard(of: $0.0.station) } ?? 0
        for step in shards.indices {
            let s = first + step < shards.count ? first + step : first + step - shards.count
            guard starts[s] < starts[s + 1] else { continue }
            if shards.withLockIfFree(s, { decide(s, &$0) }) == nil { busy.append(s) }
        }
        for s in busy { shards.withLock(s) { decide(s, &$0) } }
        return results
    }
}
