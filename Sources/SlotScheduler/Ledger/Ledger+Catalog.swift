extension Ledger {
    /// Puts `change`'s station list in service at `now` (see ``Catalog/changed(to:)``): stations
    /// and sockets it adds become bookable; those it leaves out are retired, and their bookings
    /// not yet started are displaced (as are bookings in hours the new regular hours close, on a
    /// date no availability change set), or with ``DisplacementRule/refuse`` the change is
    /// refused. A station holding bookings not yet started keeps its time zone
    /// (``Rejection/Reason/timeZoneHasBookings``). Booking ids, past bookings (on a retired
    /// socket too), availability changes and holds on open slots are kept.
    ///
    /// - Complexity: O(state): the books are rebuilt under the new catalog, as a restore does.
    @discardableResult
    public mutating func changeCatalog(
        _ change: CatalogChange, onBookings rule: DisplacementRule = .displace, at now: Instant
    ) throws(Rejection) -> CatalogChangeResult {
        try apply(.changeCatalog(change, onBookings: rule), at: now).catalogChange()
    }

    /// The apply of ``Command/changeCatalog(_:onBookings:)``: decided on the state as values,
    /// then the books rebuilt under the new rules and the displacements applied, as a replay of
    /// the journal's events would.
    mutating func applyCatalogChange(_ change: CatalogChange, rule: DisplacementRule, at now: Instant) -> Outcome {
        let revision: CatalogRevision
        switch CatalogRevision.decide(change, rule: rule, now: now, rules: rules, snapshot: snapshot()) {
        case .success(let decided): revision = decided
        case .failure(let rejection): return .refused(rejection)
        }
        let outcome = Outcome.catalogChanged(revision.result)
        let events = outcome.events(at: now)
        do throws(ReplayError) {
            self = try rebuilt(
                revision.rules, from: revision.snapshot, changedBy: events[0], replaying: Array(events.dropFirst()))
        } catch {
            return .refused(Rejection(.invalidCatalog, value: error.description))
        }
        return outcome
    }

    /// The ledger rebuilt under `rules` from `snapshot` (this ledger's, as
    /// ``CatalogRevision/rebuilding(_:rules:)`` keeps it), its journal this one's, then `change`
    /// (a ``Event/catalogChanged(_:at:)``) and `events`.
    func rebuilt(_ rules: Rules, from snapshot: Snapshot, changedBy change: Event, replaying events: [Event])
        throws(ReplayError) -> Ledger
    {
        var next = try Ledger(rules: rules, snapshot: snapshot, replaying: events, journaling: slots.journaling)
        if slots.journaling {
            next.eventsBefore = self.events + [change]
            next.eventsBeforeCount = eventCount + 1
        }
        return next
    }
}
