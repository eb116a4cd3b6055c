import Synchronization

extension Scheduler {
    /// The booking with `id`, in its current status.
    public func booking(_ id: BookingID) -> Booking? {
        let catalog = rules.catalog
        guard let shard = shard(of: id) else { return nil }
        return shards.withLock(shard) { slots in
            slots.record(of: id).map { slots.booking(record: $0, catalog: catalog) }
        }
    }

    /// The user's bookings at `now`; see ``Ledger/bookings(of:at:)``. Each booking is read
    /// atomically; one made or cancelled while the query runs may or may not be included.
    public func bookings(of user: UserID, at now: Instant) -> UserBookings {
        let ids = stripes.withLock(stripe(of: user)) { $0.activeBookings(of: user) + $0.closedBookings(of: user) }
        return UserBookings(ids.compactMap(booking), at: now, grace: rules.policy.noShowGraceSeconds)
    }

    /// The picker view of a station on a date at `now`, read under the station's lock.
    public func dayView(of station: StationID, on date: LocalDate, at now: Instant) throws(Rejection) -> DayView {
        let index = try rules.catalog.index(of: station, on: date)
        let rules = rules
        return shards.withLock(shard(of: index)) {
            $0.dayView(station: index, date: date, now: now.secondsSinceEpoch, rules: rules)
        }
    }

    /// Whether `slot` could be booked at `now`, and if not, why.
    public func status(of slot: Slot, at now: Instant) throws(Rejection) -> SlotStatus {
        let ref = try rules.catalog.resolve(slot)
        let rules = rules
        return shards.withLock(shard(of: ref.station)) { $0.status(ref, now: now.secondsSinceEpoch, rules: rules) }
    }

    /// For each station matching `filter`, its earliest free slot at `now`.
    public func earliestFreeSlots(matching filter: SlotFilter, at now: Instant) -> [FreeSlot] {
        FreeSlot.search(filter, rules: rules, now: now) { station, body in
            shards.withLock(shard(of: station)) { body($0) }
        }
    }

    /// Reminders due in `window`, by time then booking id.
    public func remindersDue(in window: Range<Instant>) -> [Reminder] {
        let catalog = rules.catalog
        return allShards { $0.remindersDue(in: window, catalog: catalog) }
            .sorted { ($0.fireAt, $0.booking) < ($1.fireAt, $1.booking) }
    }

    /// Every booking ever made and not released, by id.
    public var allBookings: [Booking] {
        let catalog = rules.catalog
        return allShards { slots in
            slots.records.storedRanges.joined().filter { !slots.isReleased(record: $0) }.map {
                slots.booking(record: $0, catalog: catalog)
            }
        }
        .sorted { $0.id < $1.id }
    }

    /// The state as plain values. Each shard is read under its lock in turn.
    public func snapshot() -> Snapshot {
        let catalog = rules.catalog
        let overrides = allShards { $0.overrides(catalog: catalog) }.sorted {
            ($0.station, $0.socket ?? "", $0.date) < ($1.station, $1.socket ?? "", $1.date)
        }
        let requests = stripes.indices.flatMap { stripe in
            stripes.withLock(stripe) { $0.rememberedReschedules(catalog: catalog) }
        }.sorted(by: RememberedReschedule.inOrder)
        let holds = allShards { $0.currentHolds(catalog: catalog) }.sorted { $0.slot < $1.slot }
        var snapshot = Snapshot(bookings: allBookings, overrides: overrides, rescheduleRequests: requests, holds: holds)
        snapshot.keepMovedRequests(
            of: stripes.indices.flatMap { stripe in stripes.withLock(stripe) { $0.rememberedRequests(catalog: catalog) }
            })
        guard let releasedBefore else { return snapshot }
        var highest: [UInt64: UInt64] = [:]
        for id in allShards({ $0.lastIDs() }) {
            let group = id.rawValue >> SlotBook.shardShift
            highest[group] = max(highest[group] ?? 0, id.rawValue & ((1 << SlotBook.shardShift) - 1))
        }
        snapshot.releasedBefore = releasedBefore
        snapshot.lastIDs = highest.map { BookingID($0.key << SlotBook.shardShift | $0.value) }.sorted()
        return snapshot
    }

    /// The journal: each shard's events in order, shards merged by time (ties by shard).
    /// Replaying it with ``init(rules:shards:replaying:)`` and the same shard count rebuilds the state.
    public var events: [Event] {
        let catalog = rules.catalog
        let perShard = shards.indices.map { shard in
            shards.withLock(shard) { slots in slots.journal.map { ($0.at, slots.event($0, catalog: catalog)) } }
        }
        var cursors = [Int](repeating: 0, count: perShard.count)
        var merged: [Event] = eventsBefore.withLock { $0 }
        while true {
            var best: Int?
            for s in perShard.indices where cursors[s] < perShard[s].count {
                if let b = best, perShard[b][cursors[b]].0 <= perShard[s][cursors[s]].0 { continue }
                best = s
            }
            guard let best else { return merged }
            merged.append(perShard[best][cursors[best]].1)
            cursors[best] += 1
        }
    }

    /// Rebuilds a scheduler from a journal: the ``events`` of a ``Scheduler`` with any shard
    /// count, or of a ``Ledger``. Booking ids are kept.
    public convenience init(rules: Rules, shards: Int = 16, replaying events: [Event]) throws(ReplayError) {
        try self.init(rules: rules, shards: shards, snapshot: Snapshot(bookings: [], overrides: []), replaying: events)
    }

    /// Restores a scheduler from a snapshot (``snapshot()``) and the events recorded after it
    /// (the journal's ``events`` since the snapshot was taken), taken from a ``Scheduler`` with
    /// any shard count or from a ``Ledger``. Booking ids are kept; after a restore across shard
    /// layouts, new ids start a new epoch (see `SlotBook+Restore.swift`). The journal starts
    /// with `events`.
    ///
    /// Errors name the index of the offending snapshot booking or override (counted as events:
    /// overrides first, then bookings) or, past those, of the event.
    public convenience init(
        rules: Rules, shards: Int = 16, snapshot: Snapshot, replaying events: [Event] = [], journaling: Bool = true
    ) throws(ReplayError) {
        self.init(rules: rules, shards: shards, journaling: journaling)
        let restore = snapshot.events
        let plan = try RestorePlan(
            restore + events, snapshot: snapshot, catalog: rules.catalog, shardCount: self.shards.count)
        for shard in self.shards.indices {
            self.shards.withLock(shard) { slots in
                if let releasedBefore = snapshot.releasedBefore { slots.releasedBefore = releasedBefore.dayNumber }
                if plan.acrossLayouts {
                    slots.beginRestoringAcrossLayouts()
                    slots.releasedHighWater = plan.releasedHighWater
                }
            }
        }
        if plan.acrossLayouts { restoredAcrossLayouts.store(true, ordering: .relaxed) }
        for (index, event) in restore.enumerated() {
            try apply(event, index: index, restoring: true, skippingReleasedIDs: plan.skipsReleasedIDs)
        }
        if plan.skipsReleasedIDs {
            for id in snapshot.lastIDs ?? [] {
                let shard = Int(truncatingIfNeeded: id.rawValue >> SlotBook.shardShift)
                if shard < self.shards.count { self.shards.withLock(shard) { $0.skipIDs(through: id) } }
            }
        }
        for shard in self.shards.indices {
            self.shards.withLock(shard) { slots in
                slots.journal.removeAll()
                slots.changes.removeAll()
            }
        }
        let catalog = rules.catalog
        for (i, memo) in snapshot.rescheduleRequests.enumerated() {
            try stripes.withLock(stripe(of: memo.user)) { (users: inout UserBook) throws(ReplayError) in
                try users.remember(memo, index: restore.count + i, catalog: catalog)
            }
        }
        for (i, memo) in snapshot.movedRequests.enumerated() {
            try stripes.withLock(stripe(of: memo.user)) { (users: inout UserBook) throws(ReplayError) in
                try users.remember(memo, index: restore.count + snapshot.rescheduleRequests.count + i, catalog: catalog)
            }
        }
        for (index, event) in events.enumerated() { try apply(event, index: restore.count + index) }
        if plan.acrossLayouts {
            for shard in self.shards.indices {
                self.shards.withLock(shard) { $0.finishRestoring(epoch: plan.nextEpoch) }
            }
        }
    }

    private func apply(
        _ event: Event, index: Int, restoring: Bool = false, skippingReleasedIDs: Bool = false
    ) throws(ReplayError) {
        let target: Int?
        let user: UserID?
        switch event {
        case .reserved(let booking):
            target = rules.catalog.stationIndex[booking.slot.station].map { self.shard(of: $0) } ?? 0
            user = booking.user
        case .cancelled(let id, let who, _), .displaced(let id, let who, _), .checkedIn(let id, let who, _),
            .checkedOut(let id, let who, _):
            target = shard(of: id)
            user = who
        case .rescheduled(let move, _):
            target = shard(of: move.booking)
            user = move.user
        case .availabilityChanged(let change, _):
            target = rules.catalog.stationIndex[change.station].map { self.shard(of: $0) }
            user = nil
        case .held(let hold):
            target = rules.catalog.stationIndex[hold.slot.station].map { self.shard(of: $0) }
            user = hold.user
        case .holdConfirmed(let booking):
            target = rules.catalog.stationIndex[booking.slot.station].map { self.shard(of: $0) }
            user = booking.user
        case .holdReleased(let slot, let who, _):
            target = rules.catalog.stationIndex[slot.station].map { self.shard(of: $0) }
            user = who
        case .catalogChanged:
            throw ReplayError(index: index, problem: "a catalog change is restored by Scheduler.restoring")
        }
        guard let shard = target else { throw ReplayError(index: index, problem: "no shard holds this event") }
        let rules = rules
        let result: Result<Void, ReplayError> = withBooks(shard: shard, stripe: stripe(of: user ?? 0)) {
            slots, users in
            do throws(ReplayError) {
                if skippingReleasedIDs, case .reserved(let booking) = event { slots.skipIDs(before: booking.id) }
                try Replay.apply(event, index: index, rules: rules, slots: &slots, users: &users, restoring: restoring)
                return .success(())
            } catch { return .failure(error) }
        }
        if case .failure(let error) = result { throw error }
    }

    private func allShards<T>(_ read: (borrowing SlotBook) -> [T]) -> [T] {
        shards.indices.flatMap { shard in shards.withLock(shard) { read($0) } }
    }
}
