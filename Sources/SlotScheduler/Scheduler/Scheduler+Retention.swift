extension Scheduler {
    /// Releases the dates before `cutoff`, as ``Ledger/releaseDays(before:at:)`` (the same rules,
    /// answers and limits afterwards). Each shard is released under its lock in turn, with the
    /// user stripes of its released bookings; commands keep running meanwhile, and a released
    /// date is past for all of them.
    ///
    /// - Throws: ``RetentionError`` when `cutoff` is after ``Rules/latestReleasableDate(at:)``.
    /// - Complexity: as ``Ledger/releaseDays(before:at:)``, plus one lock per shard and per
    ///   stripe touched.
    public func releaseDays(before cutoff: LocalDate, at now: Instant) throws(RetentionError) {
        try rules.checkRelease(before: cutoff, at: now)
        for shard in shards.indices {
            shards.withLock(shard) { slots in
                var (active, requests) = slots.releaseDays(before: cutoff.dayNumber)
                guard !active.isEmpty || !requests.isEmpty else { return }
                active.sort { (stripe(of: $0.user), $0.user) < (stripe(of: $1.user), $1.user) }
                requests.sort { stripe(of: $0.key.user) < stripe(of: $1.key.user) }
                var a = 0
                var r = 0
                while a < active.count || r < requests.count {
                    let next = min(
                        a < active.count ? stripe(of: active[a].user) : Int.max,
                        r < requests.count ? stripe(of: requests[r].key.user) : Int.max)
                    var aEnd = a
                    while aEnd < active.count, stripe(of: active[aEnd].user) == next { aEnd += 1 }
                    var rEnd = r
                    while rEnd < requests.count, stripe(of: requests[rEnd].key.user) == next { rEnd += 1 }
                    stripes.withLock(next) { users in
                        users.release(active[a..<aEnd], forgetting: Array(requests[r..<rEnd]))
                    }
                    a = aEnd
                    r = rEnd
                }
            }
        }
        // Reschedule request ids and closed bookings live in the stripe of their user, whatever the
        // shard; until this pass a shard's `releasedBefore` hides them (`Decisions.reschedule`,
        // `Ledger.bookings(of:at:)`).
        for stripe in stripes.indices {
            stripes.withLock(stripe) { users in
                users.forgetMoves(before: cutoff.dayNumber)
                users.forgetClosed(before: cutoff.dayNumber)
            }
        }
    }

    /// The first date not released, if a release happened.
    public var releasedBefore: LocalDate? {
        let day = shards.withLock(0) { $0.releasedBefore }
        return day == .min ? nil : LocalDate(dayNumber: day)
    }

    /// What `id` names: a booking held (in its current status), a released one, or nothing.
    public func lookup(_ id: BookingID) -> BookingLookup {
        let catalog = rules.catalog
        guard let shard = shard(of: id) else { return .unknown }
        return shards.withLock(shard) { slots in
            if let record = slots.record(of: id) { return .booking(slots.booking(record: record, catalog: catalog)) }
            return slots.wasReleased(id) ? .released : .unknown
        }
    }
}
