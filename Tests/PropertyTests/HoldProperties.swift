import Foundation
import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// The hold invariants (I15–I17 of INVARIANTS.md), checked after every step of generated
/// sequences of holds, confirms, releases, reservations, cancels, availability changes and clock
/// moves (forward and back), through a ``Ledger``, a one-shard ``Scheduler`` with four user
/// stripes and the ``ReferenceModel``, which must agree on every outcome.
@Suite struct HoldProperties {
    static let count = iterations(200)

    /// A world with holds: the generated world plus a hold length of 15–60 minutes and 0–2
    /// holds per user.
    struct HoldWorld: Sendable, CustomStringConvertible {
        var world: WorldSpec
        var holdQuarters: Int
        var maxHolds: Int

        var policy: Policy {
            var policy = world.policy
            policy.holdSeconds = Int64(holdQuarters) * 900
            policy.maxHoldsPerUser = maxHolds
            return policy
        }

        var description: String { "\(world) holdQuarters: \(holdQuarters) maxHolds: \(maxHolds)" }
    }

    static let worlds = zip(Generators.world, Gen.int(in: 1...4), Gen.int(in: 0...2)).map {
        HoldWorld(world: $0.0, holdQuarters: $0.1, maxHolds: $0.2)
    }

    enum HoldCommand: CustomStringConvertible {
        case hold(Slot, UserID, reminder: Int64?)
        case confirm(Slot, UserID)
        case release(Slot, UserID)
        case reserve(Slot, UserID)
        case cancel(BookingID, UserID)
        case change(AvailabilityChange)
        case advance(Int64)
        /// Moves the clock on by `advance` seconds and releases the days before `before` then.
        case releaseDays(before: LocalDate, advance: Int64)
        case queryDay(LocalDate)

        var description: String {
            switch self {
            case .hold(let slot, let user, let reminder): "hold \(slot) for \(user) reminder \(reminder ?? -1)"
            case .confirm(let slot, let user): "confirm \(slot) by \(user)"
            case .release(let slot, let user): "release \(slot) by \(user)"
            case .reserve(let slot, let user): "reserve \(slot) for \(user)"
            case .cancel(let id, let user): "cancel \(id) by \(user)"
            case .change(let change): "change \(change)"
            case .advance(let seconds): "advance \(seconds)s"
            case .releaseDays(let cutoff, let advance): "advance \(advance)s, release days before \(cutoff)"
            case .queryDay(let date): "query day S0 \(date)"
            }
        }
    }

    /// Interprets a raw command: mostly holds, confirms and releases of a few slots, so they meet.
    static func resolve(_ raw: RawCommand, world: WorldSpec, model: ReferenceModel, now: Instant) -> HoldCommand {
        let user = UserID(UInt64(raw.user % 3 + 1))
        let station: StationID = raw.station == 2 && raw.extra == 7 ? "S9" : StationID("S\(raw.station % 2)")
        let slot = Slot(
            station: station, socket: SocketID("\(raw.socket % 2 + 1)"), date: world.dstDate.adding(days: raw.day % 2),
            hour: raw.hour % 4 + 8)
        // Confirm or release the slot of an earlier hold, so most of them meet a hold.
        let earlier = model.holds.isEmpty ? nil : model.holds[(raw.extra + 8 * raw.socket) % model.holds.count].hold
        switch raw.kind {
        case 0..<25: return .hold(slot, user, reminder: raw.kind < 5 ? Int64(raw.extra) * 1_800 : nil)
        case 25..<45:
            guard let earlier else { return .confirm(slot, user) }
            return .confirm(earlier.slot, raw.user == 3 ? user : earlier.user)
        case 45..<55:
            guard let earlier else { return .release(slot, user) }
            return .release(earlier.slot, raw.user == 3 ? user : earlier.user)
        case 55..<70: return .reserve(slot, user)
        case 70..<75:
            guard !model.bookings.isEmpty else { return .cancel(BookingID(424_242), user) }
            let booking = model.bookings[(raw.extra + 8 * raw.socket) % model.bookings.count]
            return .cancel(booking.id, booking.user)
        case 75..<80:
            let hours: HourSet? = raw.extra % 2 == 0 ? .closed : nil
            return .change(AvailabilityChange(station: "S0", socket: "1", date: slot.date, hours: hours))
        case 80..<92: return .advance(Int64(raw.extra + 1) * 450)
        case 92..<96: return .advance(-Int64(raw.extra + 1) * 450)
        case 96..<100 where raw.extra < 4:
            return .releaseDays(before: world.dstDate.adding(days: raw.day % 3), advance: Int64(raw.extra) * 43_200)
        default: return .queryDay(slot.date)
        }
    }

    /// What a command gave, comparable across the ledger, the scheduler and the model.
    enum Result: Equatable {
        case hold(Hold)
        case booking(Booking)
        case refused(Rejection.Reason)
        case day([[SlotStatus]])
        /// Whether a release was accepted.
        case released(Bool)
        case none
    }

    static func run(_ command: HoldCommand, on ledger: inout Ledger, at now: Instant) -> Result {
        do throws(Rejection) {
            switch command {
            case .hold(let slot, let user, let reminder):
                return .hold(try ledger.hold(slot, for: user, reminder: reminder.map { .seconds($0) }, at: now))
            case .confirm(let slot, let user): return .booking(try ledger.confirm(slot, by: user, at: now))
            case .release(let slot, let user): return .hold(try ledger.releaseHold(slot, by: user, at: now))
            case .reserve(let slot, let user):
                return .booking(try ledger.reserve(ReservationRequest(slot: slot, user: user), at: now))
            case .cancel(let id, let user): return .booking(try ledger.cancel(id, by: user, at: now))
            case .change(let change):
                _ = try ledger.changeAvailability(change, at: now)
                return .none
            case .advance: return .none
            case .releaseDays(let cutoff, let advance):
                return .released((try? ledger.releaseDays(before: cutoff, at: now.adding(advance))) != nil)
            case .queryDay(let date): return .day(try ledger.dayView(of: "S0", on: date, at: now).sockets.map(\.hours))
            }
        } catch { return .refused(error.reason) }
    }

    static func run(_ command: HoldCommand, on scheduler: Scheduler, at now: Instant) -> Result {
        do throws(Rejection) {
            switch command {
            case .hold(let slot, let user, let reminder):
                return .hold(try scheduler.hold(slot, for: user, reminder: reminder.map { .seconds($0) }, at: now))
            case .confirm(let slot, let user): return .booking(try scheduler.confirm(slot, by: user, at: now))
            case .release(let slot, let user): return .hold(try scheduler.releaseHold(slot, by: user, at: now))
            case .reserve(let slot, let user):
                return .booking(try scheduler.reserve(ReservationRequest(slot: slot, user: user), at: now))
            case .cancel(let id, let user): return .booking(try scheduler.cancel(id, by: user, at: now))
            case .change(let change):
                _ = try scheduler.changeAvailability(change, at: now)
                return .none
            case .advance: return .none
            case .releaseDays(let cutoff, let advance):
                return .released((try? scheduler.releaseDays(before: cutoff, at: now.adding(advance))) != nil)
            case .queryDay(let date):
                return .day(try scheduler.dayView(of: "S0", on: date, at: now).sockets.map(\.hours))
            }
        } catch { return .refused(error.reason) }
    }

    static func run(_ command: HoldCommand, on model: inout ReferenceModel, at now: Instant) -> Result {
        func map<T>(_ result: ModelResult<T>, _ wrap: (T) -> Result) -> Result {
            switch result {
            case .success(let value): wrap(value)
            case .failure(let reason): .refused(reason)
            }
        }
        switch command {
        case .hold(let slot, let user, let reminder):
            return map(model.hold(slot, for: user, reminder: reminder, at: now), Result.hold)
        case .confirm(let slot, let user): return map(model.confirm(slot, by: user, at: now), Result.booking)
        case .release(let slot, let user): return map(model.releaseHold(slot, by: user, at: now), Result.hold)
        case .reserve(let slot, let user):
            return map(model.reserve(ReservationRequest(slot: slot, user: user), at: now), Result.booking)
        case .cancel(let id, let user): return map(model.cancel(id, by: user, at: now), Result.booking)
        case .change(let change): return map(model.changeAvailability(change, rule: .displace, at: now)) { _ in .none }
        case .advance: return .none
        case .releaseDays(let cutoff, let advance):
            return .released(model.release(before: cutoff, at: now.adding(advance)))
        case .queryDay(let date):
            guard let info = model.station("S0") else { return .refused(.unknownStation) }
            return .day(
                info.sockets.map { socket in
                    (0..<24).map { hour in
                        model.status(of: Slot(station: "S0", socket: socket.id, date: date, hour: hour), at: now)
                            ?? .closed
                    }
                })
        }
    }

    /// Runs `commands`, checking after every step that the ledger, the scheduler and the model
    /// agree, a refusal changed nothing, the journal replays, and `check` holds.
    static func runHolds(
        _ world: HoldWorld, _ commands: [RawCommand],
        check: (_ command: HoldCommand, _ result: Result, _ ledger: Ledger, _ model: ReferenceModel, _ now: Instant)
            -> Bool
    ) {
        guard let rules = try? Rules(catalog: try Catalog(world.world.stations), policy: world.policy) else {
            Issue.record("the library refused the world \(world)")
            return
        }
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 1, userStripes: 4)
        var model = ReferenceModel(stations: world.world.stations, policy: world.policy)
        var now = world.world.startNow
        var trace: [String] = []
        // The snapshot taken at the last release: the journal restarts there.
        var base = Snapshot(bookings: [], overrides: [])
        for raw in commands {
            let command = resolve(raw, world: world.world, model: model, now: now)
            let before = ledger
            let result = run(command, on: &ledger, at: now)
            let expected = run(command, on: &model, at: now)
            let fromScheduler = run(command, on: scheduler, at: now)
            trace.append("\(command) at \(now) -> \(result)")
            func fail(_ message: String) {
                Issue.record(Comment(rawValue: "\(message)\n\(world)\n" + trace.joined(separator: "\n")))
            }
            guard result == expected else { return fail("model says \(expected)") }
            guard fromScheduler == result else { return fail("scheduler says \(fromScheduler)") }
            if case .refused = result, before.snapshot() != ledger.snapshot() || before.eventCount != ledger.eventCount
            {
                return fail("a refusal changed the state")
            }
            guard ledger.holds(at: now) == model.liveHolds(at: now), scheduler.holds(at: now) == ledger.holds(at: now)
            else { return fail("live holds differ: \(ledger.holds(at: now)) vs \(model.liveHolds(at: now))") }
            // (A release that moved the cutoff; one at or before it changes nothing.)
            if ledger.releasedBefore != before.releasedBefore { base = ledger.snapshot() }
            guard let replayed = try? Ledger(rules: rules, snapshot: base, replaying: ledger.events),
                replayed.snapshot() == ledger.snapshot(), replayed.holds(at: now) == ledger.holds(at: now)
            else { return fail("the journal does not replay to the same state") }
            guard let restored = try? Ledger(rules: rules, snapshot: ledger.snapshot()),
                restored.holds(at: now) == ledger.holds(at: now)
            else { return fail("the snapshot does not restore the same holds") }
            guard check(command, result, ledger, model, now) else { return fail("invariant broken") }
            switch command {
            case .advance(let seconds), .releaseDays(_, let seconds): now = now.adding(seconds)
            default: break
            }
        }
    }

    /// I15 `holdExclusive`: no slot is both held (by a live hold) and booked by different users.
    @Test func I15_holdExclusive() async {
        await propertyCheck(count: Self.count, input: Self.worlds, Generators.commands) { world, commands in
            Self.runHolds(world, commands) { _, _, ledger, _, now in
                let booked = Set(ledger.allBookings.filter { $0.status == .active }.map(\.slot))
                let held = ledger.holds(at: now)
                if let both = held.first(where: { booked.contains($0.slot) }) {
                    Issue.record("slot \(both.slot) is held and booked")
                    return false
                }
                return Set(held.map(\.slot)).count == held.count
            }
        }
    }

    /// I16 `holdExpires`: a hold never outlives its expiry: no live hold at or past it, and a
    /// confirm is accepted only before it.
    @Test func I16_holdExpires() async {
        await propertyCheck(count: Self.count, input: Self.worlds, Generators.commands) { world, commands in
            Self.runHolds(world, commands) { command, result, ledger, model, now in
                if ledger.holds(at: now).contains(where: { $0.expiresAt <= now }) {
                    Issue.record("a hold lives past its expiry")
                    return false
                }
                guard case .confirm(let slot, let user) = command, case .booking(let booking) = result,
                    booking.createdAt == now
                else { return true }
                let hold = model.holds.last { $0.hold.slot == slot && $0.hold.user == user }
                guard let hold, now < hold.hold.expiresAt else {
                    Issue.record("a confirm at \(now) was accepted for a hold expiring \(String(describing: hold))")
                    return false
                }
                return true
            }
        }
    }

    /// I17 `holdsWithinLimit`: after every accepted hold, confirm or reservation, its user's live
    /// holds plus upcoming bookings do not exceed their limit, and after an accepted hold their
    /// live holds do not exceed `maxHoldsPerUser`. (Only the acting user: a clock moved back makes
    /// other users' earlier bookings upcoming again.)
    @Test func I17_holdsWithinLimit() async {
        await propertyCheck(count: Self.count, input: Self.worlds, Generators.commands) { world, commands in
            var eventsBefore = 0
            Self.runHolds(world, commands) { command, result, ledger, _, now in
                defer { eventsBefore = ledger.eventCount }
                if case .refused = result { return true }
                // A command that changed nothing (a repeated confirm) admitted nothing at `now`. With
                // the clock moved back, holds that had expired when a later one was admitted live
                // again, as ended bookings count again; every admission is still checked at its `now`.
                if ledger.eventCount == eventsBefore { return true }
                let actor: UserID? =
                    switch command {
                    case .hold(_, let user, _), .confirm(_, let user), .reserve(_, let user): user
                    default: nil
                    }
                for user in [actor].compactMap({ $0 }) {
                    let holds = ledger.holds(at: now).filter { $0.user == user }.count
                    let upcoming = ledger.allBookings.filter { $0.user == user && $0.isUpcoming(at: now) }.count
                    // The limit at admission: the booking a confirm or reservation just made was
                    // not among the bookings it counted.
                    let made: BookingID? = if case .booking(let booking) = result { booking.id } else { nil }
                    let limit = limitAtAdmission(
                        of: user, world.policy, ledger.allBookings.filter { $0.id != made }, at: now)
                    // `maxHoldsPerUser` bounds hold admissions only: a reservation at an earlier
                    // `now` may find more holds live than were ever live together going forward.
                    let holdLimitApplies = if case .hold = command { true } else { false }
                    if holds + upcoming > limit || (holdLimitApplies && holds > world.policy.maxHoldsPerUser) {
                        Issue.record("user \(user): \(holds) holds + \(upcoming) upcoming bookings; limit \(limit)")
                        return false
                    }
                }
                return true
            }
        }
    }
}

extension Instant {
    fileprivate func adding(_ seconds: Int64) -> Instant { Instant(secondsSinceEpoch: secondsSinceEpoch + seconds) }
}
