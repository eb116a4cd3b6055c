import Synchronization

extension Scheduler {
    /// A catalog change (``Ledger/changeCatalog(_:onBookings:at:)``'s rules) applied to this
    /// scheduler's state: the next scheduler, rebuilt under the new catalog with this one's shard
    /// and stripe counts, and the outcome. A scheduler's own catalog is fixed for its life
    /// (``apply(_:at:)`` refuses the command with ``Rejection/Reason/catalogFixed``): the caller
    /// stops sending commands to this one, as the journal store does under its lock, and sends
    /// them to the next. On a refusal the next scheduler is this one.
    ///
    /// - Complexity: O(state), as a restore.
    public func changingCatalog(
        _ change: CatalogChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) -> (scheduler: Scheduler, outcome: Outcome) {
        let revision: CatalogRevision
        switch CatalogRevision.decide(change, rule: rule, now: now, rules: rules, snapshot: snapshot()) {
        case .success(let decided): revision = decided
        case .failure(let rejection): return (self, .refused(rejection))
        }
        let outcome = Outcome.catalogChanged(revision.result)
        let events = outcome.events(at: now)
        do throws(ReplayError) {
            let next = try rebuilt(
                revision.rules, from: revision.snapshot, changedBy: events[0], replaying: Array(events.dropFirst()))
            return (next, outcome)
        } catch {
            return (self, .refused(Rejection(.invalidCatalog, value: error.description)))
        }
    }

    /// Restores a scheduler as ``init(rules:shards:snapshot:replaying:journaling:)`` does, from
    /// events that may hold catalog changes (``Event/catalogChanged(_:at:)``): at each, the state
    /// so far is rebuilt under the changed catalog. What the journal store opens with.
    public static func restoring(
        rules: Rules, shards: Int = 16, snapshot: Snapshot, replaying events: [Event] = [], journaling: Bool = true
    ) throws(ReplayError) -> Scheduler {
        guard let k = events.firstIndex(where: \.isCatalogChange) else {
            return try Scheduler(
                rules: rules, shards: shards, snapshot: snapshot, replaying: events, journaling: journaling)
        }
        let before = try Scheduler(
            rules: rules, shards: shards, snapshot: snapshot, replaying: Array(events[..<k]), journaling: journaling)
        let offset = snapshot.events.count + k
        let (next, kept) = try CatalogRevision.replaying(
            events[k], rules: rules, snapshot: before.snapshot(), index: offset)
        return try ReplayError.offset(by: offset, after: kept) { () throws(ReplayError) in
            try before.rebuilt(next, from: kept, changedBy: events[k], replaying: Array(events[(k + 1)...]))
        }
    }

    /// This scheduler's state rebuilt under `rules` from `snapshot` (its own, as
    /// `CatalogRevision.rebuilding` keeps it), with its shard and stripe counts; its journal this
    /// one's, then `change` and `events` (which may hold later catalog changes).
    func rebuilt(_ rules: Rules, from snapshot: Snapshot, changedBy change: Event, replaying events: [Event])
        throws(ReplayError) -> Scheduler
    {
        let journaling = shards.withLock(0) { $0.journaling }
        let next = try Scheduler.restoring(
            rules: rules, shards: shardCount, snapshot: snapshot, replaying: events, journaling: journaling)
        if journaling {
            let before = self.events + [change]
            next.eventsBefore.withLock { $0 = before + $0 }
        }
        return next
    }
}
