/// The one way a decision on a slot for a user takes the scheduler's locks: the slot's station
/// shard, then the user's stripe, the order every operation takes them in.
extension Scheduler {
    /// Runs `body` on the books of shard `shard` and stripe `stripe`, holding both locks, then
    /// republishes the shard's slot hints if `body` changed where its days' slots are.
    @inline(__always)
    func withBooks<T>(shard: Int, stripe: Int, _ body: (inout SlotBook, inout UserBook) -> T) -> T {
        shards.withLock(shard) { slots in
            stripes.withLock(stripe) { users in
                let result = body(&slots, &users)
                // Inside the stripe's closure, not after it: that keeps the closure inlined.
                slotHints.publish(&slots, shard: shard)
                return result
            }
        }
    }

    /// ``withBooks(shard:stripe:_:)`` for a decision on `ref` by `user`. The slot's word and cell
    /// and the user's state are read after the locks: asked for first, their cache misses
    /// overlap taking them (see the Concurrency article).
    @inline(__always)
    func withBooks<T>(of ref: SlotRef, user: UserID, _ body: (inout SlotBook, inout UserBook) -> T) -> T {
        let stripe = stripe(of: user)
        let shard = shard(of: ref.station)
        prefetchState(of: user, stripe: stripe)
        slotHints.prefetch(ref, shard: shard)
        return withBooks(shard: shard, stripe: stripe, body)
    }
}
