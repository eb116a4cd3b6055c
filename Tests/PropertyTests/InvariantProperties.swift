import Foundation
import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// One property per invariant of `VERIFICATION.md`, each checked after every step of generated
/// command sequences in Europe/London around the 2018 DST changes.
@Suite struct InvariantProperties {
    static let count = iterations(200)

    /// I1: no two active bookings share a slot.
    @Test func I1_noDoubleBooking() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in checkNoDoubleBooking(step.after.activeBookings) }
        }
    }

    /// I2: a reservation is admitted only while its user holds fewer upcoming bookings than
    /// their limit: after each new booking, its user holds at most `limit` at that `now`. (Other
    /// users, and steps that admit nothing, are not held to it: with the clock moved back, ended
    /// bookings are upcoming again, and a user can hold more than were ever upcoming together.)
    @Test func I2_userLimit() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in checkUserLimit(step, world) }
        }
    }

    @Test func I3_noPastBooking_withinHorizon() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in
                guard let booking = step.newBooking else { return true }
                let now = step.now.secondsSinceEpoch
                let start = booking.start.secondsSinceEpoch
                #expect(start >= now, "booked a slot starting before now: \(booking.slot)")
                #expect(start >= now + world.policy.minimumNoticeSeconds, "booked within the notice: \(booking.slot)")
                switch world.policy.horizon {
                case .unlimited: break
                case .lastDate(let last): #expect(booking.slot.date <= last, "booked beyond \(last): \(booking.slot)")
                case .rollingDays(let days):
                    #expect(
                        Int(booking.slot.date.dayNumber) <= Int(WallClock.localDay(at: now)) + days,
                        "booked beyond the rolling horizon: \(booking.slot)")
                }
                return start >= now + world.policy.minimumNoticeSeconds && withinHorizon(booking, world, now)
            }
        }
    }

    /// I4: no booking on a closed socket, outside opening hours, or at a local time that does not exist.
    @Test func I4_respectsAvailability() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in
                guard let booking = step.newBooking else { return true }
                let exists = WallClock.start(date: booking.slot.date, hour: booking.slot.hour)
                #expect(exists != nil, "booked a local time that does not exist: \(booking.slot)")
                #expect(
                    exists == booking.start.secondsSinceEpoch,
                    "start \(booking.start) is not the first instant of local \(booking.slot)")
                guard let station = step.model.station(booking.slot.station) else { return false }
                let open = step.model.openHours(station, booking.slot.socket, on: booking.slot.date)
                #expect(open.contains(booking.slot.hour), "booked an hour that is closed: \(booking.slot) open \(open)")
                return exists == booking.start.secondsSinceEpoch && open.contains(booking.slot.hour)
            }
        }
    }

    /// I5: a refused command leaves the state exactly as it was.
    @Test func I5_rejectionChangesNothing() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in
                guard step.outcome.isRefusal else { return true }
                #expect(step.stateUnchanged, "refused \(step.command) but the state changed")
                return step.stateUnchanged
            }
        }
    }

    /// I6: a cancel by the owner frees exactly that slot, which can be booked again; a cancel by
    /// anyone else changes nothing.
    @Test func I6_cancelFreesSlot() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in checkCancel(step, world) }
        }
    }

    /// I8: replaying the journal rebuilds an identical state; a snapshot round-trips.
    @Test func I8_replayable() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in checkReplay(step.after, now: step.now) }
        }
    }

    /// I9: an availability change never drops a booking silently.
    @Test func I9_noSilentLoss() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands) { step in checkNoSilentLoss(step, world) }
        }
    }

    /// I10: the ledger, and a scheduler with several shards, agree with the reference model at every step.
    @Test(arguments: [1, 3])
    func I10_matchesModel(shards: Int) async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            runSequence(world, commands, schedulerShards: shards) { step in checkMatchesModel(step) }
        }
    }

    /// I10 and I2 as time passes (``Generators/timePassingCommands``): bookings near `now` end and
    /// become no-shows while their users book again, so the end of "upcoming" and a limit
    /// lowered by no-shows decide verdicts here, which the sequences above rarely reach.
    @Test(arguments: [1, 3])
    func I10_matchesModel_asTimePasses(shards: Int) async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.timePassingCommands) {
            world, commands in
            runSequence(world, commands, schedulerShards: shards) { step in
                checkMatchesModel(step) && checkUserLimit(step, world)
            }
        }
    }

    /// I12: the same request id with the same request returns the same booking; with a different
    /// request it is refused.
    @Test func I12_idempotent() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, commands in
            var remembered: [Remembered] = []
            runSequence(world, commands) { step in checkIdempotent(step, &remembered) }
        }
    }
}

// MARK: - The checks, shared with the regression tests and the concurrency test

/// I2 after one step: a new booking's user holds at most their limit of upcoming bookings, as
/// the library defines both: upcoming is ``Booking/isUpcoming(at:)``; the limit is their own
/// (``Policy/limit(for:)``), or the no-show limit while it applies (``limitAtAdmission``).
func checkUserLimit(_ step: Step, _ world: WorldSpec) -> Bool {
    guard let booking = step.newBooking else { return true }
    let limit = limitAtAdmission(of: booking.user, world.policy, step.before.allBookings, at: step.now)
    let upcoming = step.after.allBookings.filter { $0.user == booking.user && $0.isUpcoming(at: step.now) }
    if upcoming.count > limit {
        Issue.record("user \(booking.user) holds \(upcoming.count) upcoming bookings; limit \(limit)")
        return false
    }
    return true
}

/// The limit `user` is admitted under at `now`, given the bookings before the admission: their
/// own (``Policy/limit(for:)``: a per-user override or ``Policy/maxUpcomingBookings``), or the
/// ``Policy/noShowLimit`` one when it is lower and they have at least its count of no-shows
/// (``Booking/isNoShow(at:grace:)``) among their bookings that started in its last `days` days.
func limitAtAdmission(of user: UserID, _ policy: Policy, _ bookings: [Booking], at now: Instant) -> Int {
    let own = policy.limit(for: user)
    guard let rule = policy.noShowLimit, rule.limit < own else { return own }
    let since = now.secondsSinceEpoch - Int64(rule.days) * 86_400
    let noShows = bookings.filter {
        $0.user == user && $0.start.secondsSinceEpoch >= since
            && $0.isNoShow(at: now, grace: policy.noShowGraceSeconds)
    }
    return noShows.count >= rule.noShows ? rule.limit : own
}

func checkNoDoubleBooking(_ active: [Booking]) -> Bool {
    let slots = active.map(\.slot).sorted()
    for (a, b) in zip(slots, slots.dropFirst()) where a == b {
        Issue.record("two active bookings share \(a)")
        return false
    }
    return true
}

func withinHorizon(_ booking: Booking, _ world: WorldSpec, _ now: Int64) -> Bool {
    switch world.policy.horizon {
    case .unlimited: return true
    case .lastDate(let last): return booking.slot.date <= last
    case .rollingDays(let days): return Int(booking.slot.date.dayNumber) <= Int(WallClock.localDay(at: now)) + days
    }
}

func checkCancel(_ step: Step, _ world: WorldSpec) -> Bool {
    guard case .cancel(let id, let user) = step.command else { return true }
    guard let original = step.before.booking(id) else {
        #expect(step.outcome.isRefusal && step.stateUnchanged, "cancel of unknown \(id) was not a no-op")
        return step.outcome.isRefusal && step.stateUnchanged
    }
    if original.user != user {
        #expect(step.outcome == .refused(.notOwner), "user \(user) cancelled \(id) of user \(original.user)")
        #expect(step.stateUnchanged, "a cancel by a non-owner changed the state")
        return step.outcome == .refused(.notOwner) && step.stateUnchanged
    }
    guard case .booking = step.outcome else { return true }
    // Exactly that booking changed, to cancelled.
    let before = step.before.allBookings
    let after = step.after.allBookings
    var expected = before
    if let i = expected.firstIndex(where: { $0.id == id }) { expected[i].status = .cancelled }
    #expect(after == expected, "cancel changed more than booking \(id)")
    // Its slot can be booked again, by someone else, at a moment the time rules allow.
    var copy = step.after
    let at = Instant(
        secondsSinceEpoch: min(
            step.now.secondsSinceEpoch, original.start.secondsSinceEpoch - world.policy.minimumNoticeSeconds))
    let again = Runner.apply(.reserve(ReservationRequest(slot: original.slot, user: 99)), to: &copy, at: at)
    #expect(again != .refused(.slotTaken), "slot \(original.slot) is still taken after cancelling \(id)")
    return after == expected && again != .refused(.slotTaken)
}

func checkReplay(_ ledger: Ledger, now: Instant) -> Bool {
    let snapshot = ledger.snapshot()
    do {
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == snapshot, "replaying the journal gave a different state")
        let restored = try Ledger(rules: ledger.rules, snapshot: snapshot)
        #expect(restored.snapshot() == snapshot, "restoring the snapshot gave a different state")
        let sameUsers = (1...5).allSatisfy { u in
            replayed.bookings(of: UserID(UInt64(u)), at: now) == ledger.bookings(of: UserID(UInt64(u)), at: now)
                && restored.bookings(of: UserID(UInt64(u)), at: now)
                    == ledger.bookings(of: UserID(UInt64(u)), at: now)
        }
        #expect(sameUsers, "a rebuilt ledger lists users' bookings differently")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let decoded = try JSONDecoder().decode(Snapshot.self, from: try encoder.encode(snapshot))
        #expect(decoded == snapshot, "the snapshot does not survive JSON")
        return replayed.snapshot() == snapshot && restored.snapshot() == snapshot && sameUsers && decoded == snapshot
    } catch {
        Issue.record("replay failed: \(error)")
        return false
    }
}

func checkNoSilentLoss(_ step: Step, _ world: WorldSpec) -> Bool {
    guard case .change(let change, _) = step.command else { return true }
    let before = step.before.allBookings
    let after = step.after.allBookings
    let changed = zip(before, after).filter { $0 != $1 }.map(\.1)
    #expect(after.count == before.count, "an availability change added or removed bookings")
    guard case .bookings(let displaced) = step.outcome else {
        #expect(changed.isEmpty, "a refused availability change altered bookings")
        return changed.isEmpty
    }
    // Every booking whose status changed is reported, as displaced, and journaled.
    let reported = displaced.map(\.id).sorted()
    #expect(changed.map(\.id) == reported, "changed \(changed.map(\.id)) but reported \(reported)")
    #expect(displaced.allSatisfy { $0.status == .displaced }, "a reported booking is not marked displaced")
    let journaled = step.after.events(since: step.before.eventCount).compactMap { event -> BookingID? in
        if case .displaced(let id, _, _) = event { return id }
        return nil
    }.sorted()
    #expect(journaled == reported, "journal displaced \(journaled) but reported \(reported)")
    // No active booking is left in an hour the change closed.
    let stranded = step.after.activeBookings.filter { booking in
        guard booking.slot.station == change.station, booking.slot.date == change.date,
            change.socket == nil || change.socket == booking.slot.socket,
            let station = world.stations.first(where: { $0.id == change.station })
        else { return false }
        let hours = change.hours ?? step.model.regularHours(station, booking.slot.socket)
        return !hours.contains(booking.slot.hour)
    }
    #expect(stranded.isEmpty, "bookings left active in closed hours: \(stranded.map(\.slot))")
    return changed.map(\.id) == reported && journaled == reported && stranded.isEmpty
        && displaced.allSatisfy { $0.status == .displaced }
}

func checkMatchesModel(_ step: Step) -> Bool {
    #expect(step.outcome == step.modelOutcome, "ledger \(step.outcome) but model \(step.modelOutcome)")
    let bookings = step.after.allBookings
    let held = step.model.heldBookings
    #expect(bookings == held, "ledger and model bookings differ")
    var ok = step.outcome == step.modelOutcome && bookings == held
    if let schedulerOutcome = step.schedulerOutcome, let schedulerBookings = step.schedulerBookings {
        #expect(schedulerOutcome == step.modelOutcome, "scheduler \(schedulerOutcome) but model \(step.modelOutcome)")
        #expect(schedulerBookings == held, "scheduler and model bookings differ")
        ok = ok && schedulerOutcome == step.modelOutcome && schedulerBookings == held
    }
    return ok && checkRemindersMatchModel(step.reminders)
}

/// I10 for reminders: every face finds the reminders the model says fall due in the window.
func checkRemindersMatchModel(_ due: DueReminders) -> Bool {
    #expect(due.ledger == due.model, "ledger reminders in \(due.window): \(due.ledger); model \(due.model)")
    #expect(
        due.scheduler ?? due.model == due.model,
        "scheduler reminders in \(due.window): \(due.scheduler ?? []); model \(due.model)")
    return due.ledger == due.model && due.scheduler ?? due.model == due.model
}

/// The first accepted request for a (user, request id).
struct Remembered {
    var request: ReservationRequest
    var booking: Booking
}

/// I12 for one step. A different request under a known id must be refused; when its slot is a
/// real one (so the refusal is not about the slot itself) the reason is `conflictingRequestID`.
func checkIdempotent(_ step: Step, _ remembered: inout [Remembered]) -> Bool {
    guard case .reserve(let request) = step.command, let id = request.requestID else { return true }
    guard let first = remembered.first(where: { $0.request.user == request.user && $0.request.requestID == id })
    else {
        if case .booking(let b) = step.outcome { remembered.append(Remembered(request: request, booking: b)) }
        return true
    }
    if first.request.slot == request.slot && first.request.reminder == request.reminder {
        guard case .booking(let b) = step.outcome, b.id == first.booking.id else {
            Issue.record("repeat of \(id) gave \(step.outcome), not booking \(first.booking.id)")
            return false
        }
        #expect(step.stateUnchanged, "a repeated request changed the state")
        return step.stateUnchanged
    }
    let slotExists = (try? step.before.catalog.resolve(request.slot)) != nil
    let ok = slotExists ? step.outcome == .refused(.conflictingRequestID) : step.outcome.isRefusal
    if !ok { Issue.record("\(id) reused for a different request gave \(step.outcome)") }
    return ok
}
