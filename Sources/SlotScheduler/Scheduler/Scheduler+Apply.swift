extension Scheduler {
    /// Applies one command at `now`, atomically: the scheduler chooses the books the command
    /// names and takes their locks (the station's shard, then each user's stripe as the one
    /// apply asks for it), and ``Ledger``'s apply decides. The named methods wrap it.
    public func apply(_ command: Command, at now: Instant) -> Outcome {
        let resolved: ResolvedCommand
        do throws(Rejection) { resolved = try rules.resolve(command) } catch { return .refused(error) }
        let shard: Int
        switch resolved.place {
        case .slot(let ref, let user):
            shard = self.shard(of: ref.station)
            // Asked for before the locks, so their cache misses overlap taking them.
            prefetchState(of: user, stripe: stripe(of: user))
            slotHints.prefetch(ref, shard: shard)
        case .booking(let id, _):
            guard let found = self.shard(of: id) else { return .refused(resolved.unknownBooking) }
            shard = found
        case .station(let station):
            shard = self.shard(of: station)
        }
        let rules = rules
        return shards.withLock(shard) { slots in
            var users = Stripes(scheduler: self)
            let outcome = Decisions.apply(
                resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
            slotHints.publish(&slots, shard: shard)
            return outcome
        }
    }

    /// A scheduler's user books: each user's stripe, locked while the body runs.
    struct Stripes: UserBooks {
        let scheduler: Scheduler

        func withBook<T>(of user: UserID, _ body: (inout UserBook) -> T) -> T {
            scheduler.stripes.withLock(scheduler.stripe(of: user), body)
        }
    }
}
