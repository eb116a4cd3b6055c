/// Applies recorded facts (events) without re-deciding them: the rules were checked when the
/// event happened. Only integrity is checked: ids in sequence, slots free, bookings active.
enum Replay {
    /// - Parameter restoring: `event` is one of a ``Snapshot``'s (``Snapshot/events``): a
    ///   reservation of a booking no longer active restores it closed, without its slot.
    static func apply(
        _ event: Event, index: Int, rules: Rules, slots: inout SlotBook, users: inout UserBook, restoring: Bool = false
    ) throws(ReplayError) {
        func fail(_ problem: String) -> ReplayError { ReplayError(index: index, problem: problem) }
        switch event {
        case .reserved(let booking) where restoring && booking.status != .active:
            try restoreClosed(booking, index: index, rules: rules, slots: &slots, users: &users)
        case .reserved(let booking):
            guard booking.status == .active, booking.checkedInAt == nil, booking.checkedOutAt == nil else {
                throw fail(
                    "booking \(booking.id) is made \(booking.status) or checked in; a reservation makes it active")
            }
            let ref = try madeRef(of: booking, index: index, rules: rules, slots: slots)
            let page = slots.pageIndex(ref.day)
            guard slots.occupant(ref) == nil else { throw fail("slot \(booking.slot) is already booked") }
            guard slots.liveHold(ref, now: booking.createdAt.secondsSinceEpoch) == nil else {
                throw fail("slot \(booking.slot) is held")
            }
            if slots.isRestoringAcrossLayouts { slots.restore(booking.id) }
            let request = ResolvedRequest(
                ref: ref, user: booking.user, requestID: booking.requestID, reminder: booking.reminderOffsetSeconds)
            let u = users.findOrInsert(booking.user)
            _ = Decisions.commit(
                request, start: booking.start.secondsSinceEpoch, block: page, user: u,
                now: booking.createdAt.secondsSinceEpoch, slots: &slots, users: &users)
        case .cancelled(let id, let user, let at), .displaced(let id, let user, let at):
            guard let record = slots.record(of: id), slots.records[record].status == .active,
                slots.records[record].user == user
            else { throw fail("booking \(id) of user \(user) is not active") }
            let status: Booking.Status
            if case .cancelled = event { status = .cancelled } else { status = .displaced }
            Decisions.close(record, as: status, now: at.secondsSinceEpoch, slots: &slots, users: &users)
        case .rescheduled(let move, let at):
            try applyMove(move, at: at, index: index, rules: rules, slots: &slots, users: &users)
        case .availabilityChanged(let change, let at):
            switch Decisions.availabilityTargets(of: change, rules: rules, slots: slots) {
            case .failure(let rejection): throw fail(rejection.description)
            case .success(let sockets) where sockets.contains { $0 < 0 }:
                throw fail("availability change for station \(change.station), which this shard does not hold")
            case .success(let sockets):
                Decisions.commitAvailability(change, sockets: sockets, now: at.secondsSinceEpoch, slots: &slots)
            }
        case .checkedIn(let id, let user, let at):
            guard let record = slots.record(of: id), slots.records[record].status == .active,
                slots.records[record].user == user
            else { throw fail("booking \(id) of user \(user) is not active") }
            guard slots.checkIns[Int32(truncatingIfNeeded: record)] == nil else {
                throw fail("booking \(id) is already checked in")
            }
            Decisions.commitCheckIn(record, now: at.secondsSinceEpoch, slots: &slots, users: &users)
        case .checkedOut(let id, let user, let at):
            guard let record = slots.record(of: id), slots.records[record].status == .active,
                slots.records[record].user == user
            else { throw fail("booking \(id) of user \(user) is not active") }
            guard slots.checkIns[Int32(truncatingIfNeeded: record)] != nil else {
                throw fail("booking \(id) is checked out but was never checked in")
            }
            Decisions.commitCheckOut(record, now: at.secondsSinceEpoch, slots: &slots, users: &users)
        case .held, .holdConfirmed, .holdReleased:
            try applyHold(event, index: index, rules: rules, slots: &slots, users: &users)
        case .catalogChanged:
            // The faces rebuild their books at a catalog change (`CatalogRevision.replaying`).
            throw fail("a catalog change is replayed by rebuilding the books, not applied to them")
        }
    }
}

/// The full state of a ledger or scheduler as plain values: every booking ever made and every
/// date whose availability differs from the regular hours. Round-trips through JSON.
public struct Snapshot: Hashable, Codable, Sendable {
    /// All bookings, active or not, sorted by id.
    public var bookings: [Booking]
    /// Per-socket-date hours that differ from the regular ones, sorted by station, socket, date.
    public var overrides: [AvailabilityChange]
    /// Reschedule request ids remembered, by user then id (empty for a snapshot without any).
    public var rescheduleRequests: [RememberedReschedule] = []
    /// The holds that still have their slot (live, or expired but not yet overtaken), by slot.
    public var holds: [Hold] = []
    /// Reservation request ids whose booking has moved since, with the slot each asked for, by
    /// user then id (empty for a snapshot without any).
    public var movedRequests: [MovedRequest] = []

    /// After ``Ledger/releaseDays(before:at:)``: the first date not released. `bookings` and
    /// `overrides` then hold only later dates; `nil` when nothing was released.
    public var releasedBefore: LocalDate?
    /// After a release: the highest booking id each epoch and shard assigned (a released
    /// booking may have had it), sorted, so a restore never assigns a released id again and
    /// knows it was released; `nil` when nothing was released.
    public var lastIDs: [BookingID]?

    public init(
        bookings: [Booking], overrides: [AvailabilityChange], releasedBefore: LocalDate? = nil,
        lastIDs: [BookingID]? = nil
    ) {
        self.bookings = bookings
        self.overrides = overrides
        self.releasedBefore = releasedBefore
        self.lastIDs = lastIDs
    }

    /// The events that rebuild this snapshot, applied with `restoring` (see `Replay.apply`):
    /// overrides, then each booking in id order (an active one made, then checked in if it was;
    /// a closed one restored closed, holding no slot, as it is), then the holds, whose slots no
    /// active booking has.
    var events: [Event] {
        var events = overrides.map { Event.availabilityChanged($0, at: Instant(0)) }
        for booking in bookings {
            guard booking.status == .active else {
                events.append(.reserved(booking))
                continue
            }
            var made = booking
            made.checkedInAt = nil
            events.append(.reserved(made))
            if let at = booking.checkedInAt { events.append(.checkedIn(booking.id, user: booking.user, at: at)) }
        }
        events.append(contentsOf: holds.map(Event.held))
        return events
    }
}

extension Ledger {
    /// Rebuilds a ledger by replaying `events` onto an empty one with `rules`: the events of a
    /// ``Ledger`` or of a ``Scheduler`` with any shard count; booking ids are kept.
    public init(rules: Rules, replaying events: [Event], journaling: Bool = true) throws(ReplayError) {
        try self.init(
            rules: rules, snapshot: Snapshot(bookings: [], overrides: []), replaying: events, journaling: journaling)
    }

    /// The current state as plain values.
    public func snapshot() -> Snapshot {
        // Sorted by ids exactly as ``Scheduler/snapshot()`` sorts, so the two compare equal.
        let overrides = slots.overrides(catalog: rules.catalog).sorted {
            ($0.station, $0.socket ?? "", $0.date) < ($1.station, $1.socket ?? "", $1.date)
        }
        var snapshot = Snapshot(
            bookings: allBookings, overrides: overrides,
            rescheduleRequests: users.rememberedReschedules(catalog: rules.catalog),
            holds: slots.currentHolds(catalog: rules.catalog))
        snapshot.keepMovedRequests(of: users.rememberedRequests(catalog: rules.catalog))
        if let releasedBefore {
            snapshot.releasedBefore = releasedBefore
            snapshot.lastIDs = slots.lastIDs().sorted()
        }
        return snapshot
    }

    /// Rebuilds a ledger from a snapshot and the events recorded after it (``events(since:)``
    /// with the ``eventCount`` at the snapshot), taken from a ``Ledger`` or from a ``Scheduler``
    /// with any shard count; booking ids are kept. Its journal starts with `events`.
    public init(rules: Rules, snapshot: Snapshot, replaying events: [Event] = [], journaling: Bool = true)
        throws(ReplayError)
    {
        if let k = events.firstIndex(where: \.isCatalogChange) {
            try self.init(rules: rules, snapshot: snapshot, replaying: Array(events[..<k]), journaling: journaling)
            let offset = snapshot.events.count + k
            let (next, kept) = try CatalogRevision.replaying(
                events[k], rules: self.rules, snapshot: self.snapshot(), index: offset)
            self = try ReplayError.offset(by: offset, after: kept) { () throws(ReplayError) in
                try rebuilt(next, from: kept, changedBy: events[k], replaying: Array(events[(k + 1)...]))
            }
            return
        }
        self.init(rules: rules, journaling: journaling)
        let restore = snapshot.events
        let plan = try RestorePlan(restore + events, snapshot: snapshot, catalog: rules.catalog, shardCount: 1)
        if let releasedBefore = snapshot.releasedBefore { slots.releasedBefore = releasedBefore.dayNumber }
        if plan.acrossLayouts {
            slots.beginRestoringAcrossLayouts()
            slots.releasedHighWater = plan.releasedHighWater
        }
        for (index, event) in restore.enumerated() {
            if plan.skipsReleasedIDs, case .reserved(let booking) = event { slots.skipIDs(before: booking.id) }
            try Replay.apply(event, index: index, rules: rules, slots: &slots, users: &users, restoring: true)
        }
        if plan.skipsReleasedIDs { for id in snapshot.lastIDs ?? [] { slots.skipIDs(through: id) } }
        slots.journal.removeAll()
        slots.changes.removeAll()
        for (i, memo) in snapshot.rescheduleRequests.enumerated() {
            try users.remember(memo, index: restore.count + i, catalog: rules.catalog)
        }
        for (i, memo) in snapshot.movedRequests.enumerated() {
            try users.remember(
                memo, index: restore.count + snapshot.rescheduleRequests.count + i, catalog: rules.catalog)
        }
        for (index, event) in events.enumerated() {
            try Replay.apply(event, index: restore.count + index, rules: rules, slots: &slots, users: &users)
        }
        if plan.acrossLayouts { slots.finishRestoring(epoch: plan.nextEpoch) }
    }
}

extension Replay {
    /// The slot of a booking a `reserved` event makes, once its integrity is checked: a known
    /// slot of this book's stations on a date not released, a valid request id, a start in the
    /// supported years, and the next id in sequence. (Whether the slot is free is the caller's.)
    static func madeRef(of booking: Booking, index: Int, rules: Rules, slots: SlotBook) throws(ReplayError) -> SlotRef {
        func fail(_ problem: String) -> ReplayError { ReplayError(index: index, problem: problem) }
        let ref: SlotRef
        do { ref = try rules.catalog.resolve(booking.slot, includingRetired: true) } catch {
            throw fail(error.description)
        }
        if let id = booking.requestID, let expected = IdentifierRule.problem(in: id.rawValue) {
            throw fail("request id \(IdentifierRule.shortened(id.rawValue).debugDescription): expected \(expected)")
        }
        try checkTimes(
            booking.start, reminder: booking.reminderOffsetSeconds, of: "booking \(booking.id)", slot: booking.slot,
            index: index)
        guard slots.owns(station: Int(ref.station)) else {
            throw fail("booking \(booking.id) is for station \(booking.slot.station), which this shard does not hold")
        }
        guard ref.day >= slots.releasedBefore else {
            throw fail("booking \(booking.id) is for \(booking.slot.date), a released date")
        }
        let record = slots.records.count
        guard slots.isRestoringAcrossLayouts || slots.bookingID(record: record) == booking.id else {
            throw fail("booking id \(booking.id) is out of sequence; expected \(slots.bookingID(record: record))")
        }
        return ref
    }

    /// Checks a made booking's times as its event states them: a start within 26 hours of its
    /// slot's wall-clock hour (every UTC offset is within that, so a start written under older
    /// time zone data still replays, and a start far from the slot, which would take the booking
    /// out of its user's upcoming count, does not), and a reminder offset a reservation accepts.
    /// `subject` names the booking or hold in the error.
    static func checkTimes(
        _ start: Instant, reminder: Int64?, of subject: @autoclosure () -> String, slot: Slot, index: Int
    ) throws(ReplayError) {
        let wall = Int64(slot.date.dayNumber) * 86_400 + Int64(slot.hour) * 3_600
        guard Instant.supportedRange.contains(start), abs(start.secondsSinceEpoch - wall) <= 26 * 3_600 else {
            throw ReplayError(
                index: index, problem: "\(subject()) starts at \(start), not at \(slot.date) hour \(slot.hour)")
        }
        if let reminder, !Rules.reminderRange.contains(reminder) {
            throw ReplayError(index: index, problem: "\(subject()) has a reminder offset of \(reminder) seconds")
        }
    }

    /// Restores a snapshot's cancelled or displaced booking as it is now: its record with its
    /// final status and check-in, its request id, its user's closed entry; it holds no slot.
    /// (Replaying it as made, then closed, would need its slot free, and a booking with a lower
    /// id may have moved there after it closed.)
    static func restoreClosed(
        _ booking: Booking, index: Int, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) throws(ReplayError) {
        let ref = try madeRef(of: booking, index: index, rules: rules, slots: slots)
        if slots.isRestoringAcrossLayouts { slots.restore(booking.id) }
        let record = slots.records.count
        let request = ResolvedRequest(
            ref: ref, user: booking.user, requestID: booking.requestID, reminder: booking.reminderOffsetSeconds)
        slots.records.append(
            BookingRecord(
                request, start: booking.start.secondsSinceEpoch, createdAt: booking.createdAt.secondsSinceEpoch,
                status: booking.status))
        Decisions.remember(request, booking: booking.id, record: record, slots: &slots, users: &users)
        if let at = booking.checkedInAt { slots.checkIns[Int32(truncatingIfNeeded: record)] = at.secondsSinceEpoch }
        if let at = booking.checkedOutAt {
            slots.checkOuts[Int32(truncatingIfNeeded: record)] = at.secondsSinceEpoch
        }
        _ = users.findOrInsert(booking.user)
        users.close(booking.id, of: booking.user, day: ref.day)
    }
}
