/// What a catalog change did: the difference, the bookings it displaced and the holds it dropped.
public struct CatalogChangeResult: Hashable, Sendable {
    /// The station list put in service.
    public var change: CatalogChange
    /// The new catalog's ``Catalog/revision``.
    public var revision: Int
    public var difference: CatalogDifference
    /// The bookings it displaced (status `displaced`), by id: those not yet started on a retired
    /// station or socket, or in an hour the new regular hours close on a date whose hours no
    /// availability change set.
    public var displaced: [Booking]
    /// The holds on such slots, dropped (as released), by slot.
    public var droppedHolds: [Hold]
}

/// A catalog change decided on the books' state as values (a ``Snapshot``): the rules to rebuild
/// the books with, the snapshot to rebuild them from and the events that follow. A ``Ledger``
/// and a ``Scheduler`` apply a catalog change by rebuilding (``Ledger/changeCatalog(_:onBookings:at:)``,
/// ``Scheduler/changingCatalog(_:onBookings:at:)``), and a replay of the change's event rebuilds
/// with ``rebuilding(_:rules:)``: the one place that says what a catalog change keeps.
package struct CatalogRevision {
    package let rules: Rules
    /// The state to restore under ``rules``: the snapshot without the holds and overrides of
    /// retired sockets and the holds in hours that close.
    let snapshot: Snapshot
    package let result: CatalogChangeResult

    /// Decides `change` at `now` on `snapshot`, the state under `rules`. A store that reads only
    /// part of its state passes the bookings not yet started and the holds on the sockets
    /// ``Catalog/socketsAffected(by:)`` names, and the overrides of those sockets: the decision
    /// looks at nothing else.
    package static func decide(
        _ change: CatalogChange, rule: DisplacementRule, now: Instant, rules: Rules, snapshot: Snapshot
    ) -> Result<CatalogRevision, Rejection> {
        let next: Rules
        switch nextRules(change, rules: rules) {
        case .success(let found): next = found
        case .failure(let rejection): return .failure(rejection)
        }
        if let refusal = timeZoneRefusal(next.catalog, rules: rules, snapshot: snapshot, now: now) {
            return .failure(refusal)
        }
        let overridden = Set(
            snapshot.overrides.map { OverrideKey(station: $0.station, socket: $0.socket, date: $0.date) })
        let displaced = snapshot.bookings.filter {
            $0.status == .active && $0.start >= now && !isOpen($0.slot, in: next.catalog, overridden: overridden)
        }
        if rule == .refuse, !displaced.isEmpty {
            return .failure(
                Rejection(.slotHasBookings, value: "catalog revision \(next.catalog.revision)", limit: displaced.count))
        }
        let (kept, dropped) = rebuilding(snapshot, rules: next)
        let result = CatalogChangeResult(
            change: change, revision: next.catalog.revision, difference: rules.catalog.difference(to: next.catalog),
            displaced: displaced.map {
                var booking = $0
                booking.status = .displaced
                return booking
            }, droppedHolds: dropped)
        return .success(CatalogRevision(rules: next, snapshot: kept, result: result))
    }

    /// The rules with `change`'s stations in service, or why the list is refused.
    package static func nextRules(_ change: CatalogChange, rules: Rules) -> Result<Rules, Rejection> {
        do throws(InvalidValue) {
            return .success(try Rules(catalog: try rules.catalog.changed(to: change.stations), policy: rules.policy))
        } catch {
            return .failure(Rejection(.invalidCatalog, value: error.description))
        }
    }

    /// `snapshot` as the books keep it under `rules` (the changed catalog's): without the
    /// overrides of retired sockets, and without the holds on slots it does not open. Returns the
    /// holds dropped too. Deterministic, so a replay of the change drops the same ones.
    static func rebuilding(_ snapshot: Snapshot, rules: Rules) -> (Snapshot, dropped: [Hold]) {
        var kept = snapshot
        kept.overrides = snapshot.overrides.filter { change in
            guard let station = rules.catalog.station(change.station) else { return false }
            return change.socket.map { socket in station.sockets.contains { $0.id == socket } } ?? true
        }
        let overridden = Set(kept.overrides.map { OverrideKey(station: $0.station, socket: $0.socket, date: $0.date) })
        kept.holds = snapshot.holds.filter { isOpen($0.slot, in: rules.catalog, overridden: overridden) }
        let dropped = snapshot.holds.filter { !isOpen($0.slot, in: rules.catalog, overridden: overridden) }
            .sorted { $0.slot < $1.slot }
        return (kept, dropped)
    }

    /// Whether `slot` is a slot in service of `catalog` open at its hour, on a date whose hours
    /// an override set (which a catalog change keeps) or by the new regular hours.
    private static func isOpen(_ slot: Slot, in catalog: Catalog, overridden: Set<OverrideKey>) -> Bool {
        guard let ref = try? catalog.resolve(slot) else { return false }
        if overridden.contains(OverrideKey(station: slot.station, socket: slot.socket, date: slot.date))
            || overridden.contains(OverrideKey(station: slot.station, socket: nil, date: slot.date))
        {
            return true
        }
        return catalog.regularHours[Int(ref.socket)] & (1 << UInt32(slot.hour)) != 0
    }

    /// The refusal of a change that moves a station holding bookings not yet started (or live
    /// holds) to another time zone: their start instants were computed in the old one.
    private static func timeZoneRefusal(_ next: Catalog, rules: Rules, snapshot: Snapshot, now: Instant) -> Rejection? {
        var moved: [StationID: Int] = [:]
        for station in rules.catalog.stations {
            if let after = next.station(station.id), after.timeZone != station.timeZone { moved[station.id] = 0 }
        }
        guard !moved.isEmpty else { return nil }
        for booking in snapshot.bookings where booking.status == .active && booking.start >= now {
            moved[booking.slot.station]? += 1
        }
        for hold in snapshot.holds where hold.expiresAt > now { moved[hold.slot.station]? += 1 }
        guard let first = moved.filter({ $0.value > 0 }).keys.min() else { return nil }
        return Rejection(.timeZoneHasBookings, value: first.rawValue, limit: moved[first])
    }

    private struct OverrideKey: Hashable {
        var station: StationID
        var socket: SocketID?
        var date: LocalDate
    }
}

extension CatalogRevision {
    /// The rules and the state a replayed ``Event/catalogChanged(_:at:)`` (at `index`) rebuilds
    /// the books with, from `snapshot`, the state under `rules` before it.
    static func replaying(_ event: Event, rules: Rules, snapshot: Snapshot, index: Int) throws(ReplayError)
        -> (Rules, Snapshot)
    {
        guard case .catalogChanged(let change, _) = event else {
            throw ReplayError(index: index, problem: "not a catalog change")
        }
        switch nextRules(change, rules: rules) {
        case .success(let next): return (next, rebuilding(snapshot, rules: next).0)
        case .failure(let rejection): throw ReplayError(index: index, problem: rejection.description)
        }
    }
}

extension Event {
    /// Whether this is a ``catalogChanged(_:at:)``, after which a replay rebuilds the books.
    var isCatalogChange: Bool {
        if case .catalogChanged = self { return true }
        return false
    }
}

extension ReplayError {
    /// Runs a rebuild after the catalog change at `index`, naming its failures by their index in
    /// the whole replay: an event after the change by its own, the restore of `snapshot` by the
    /// change's.
    static func offset<T>(by index: Int, after snapshot: Snapshot, _ body: () throws(ReplayError) -> T)
        throws(ReplayError) -> T
    {
        do { return try body() } catch {
            let restored = snapshot.events.count
            guard error.index >= restored else {
                throw ReplayError(index: index, problem: "rebuilding after the catalog change: \(error.problem)")
            }
            throw ReplayError(index: index + 1 + error.index - restored, problem: error.problem)
        }
    }
}
