import Foundation
import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// The check-in, no-show and check-out invariants (I18, I19 and I21 of INVARIANTS.md), checked
/// after every step of generated sequences of reservations, check-ins, check-outs, cancels, user
/// queries and clock moves (forward and back) through a ``Ledger``, a one-shard ``Scheduler`` with four user stripes and the
/// ``ReferenceModel``, which must agree on every outcome; the journal, the snapshot and its JSON
/// must rebuild the same state after every step.
@Suite struct CheckInProperties {
    static let count = iterations(200)

    /// A world with a check-in window: the generated world (its grace of 0–60 minutes and, in
    /// most, a no-show limit: 1 or 2 no-shows in the last 1–3 days lower the limit to 0–2) plus
    /// check-in opening 0–60 minutes early.
    struct CheckInWorld: Sendable, CustomStringConvertible {
        var world: WorldSpec
        var earlyQuarters: Int

        var policy: Policy {
            var policy = world.policy
            policy.earlyCheckInSeconds = Int64(earlyQuarters) * 900
            return policy
        }

        /// Late in the morning before the DST date's slots, so windows open and close during a run.
        var startNow: Instant { Instant(secondsSinceEpoch: world.startNow.secondsSinceEpoch + 11 * 3_600) }

        var description: String { "\(world) earlyQuarters: \(earlyQuarters)" }
    }

    static let worlds = zip(Generators.world, Gen.int(in: 0...4)).map {
        CheckInWorld(world: $0.0, earlyQuarters: $0.1)
    }

    enum CheckInCommand: CustomStringConvertible {
        case reserve(Slot, UserID)
        case checkIn(BookingID, UserID)
        case checkOut(BookingID, UserID)
        case cancel(BookingID, UserID)
        case advance(Int64)
        case query(UserID)

        var description: String {
            switch self {
            case .reserve(let slot, let user): "reserve \(slot) for \(user)"
            case .checkIn(let id, let user): "check in \(id) by \(user)"
            case .checkOut(let id, let user): "check out \(id) by \(user)"
            case .cancel(let id, let user): "cancel \(id) by \(user)"
            case .advance(let seconds): "advance \(seconds)s"
            case .query(let user): "query \(user)"
            }
        }
    }

    /// Interprets a raw command: reservations of a few slots near `now`, check-ins of earlier
    /// bookings (mostly by their owner), cancels, and clock moves of 10–80 minutes.
    static func resolve(_ raw: RawCommand, world: WorldSpec, model: ReferenceModel) -> CheckInCommand {
        let user = UserID(UInt64(raw.user % 3 + 1))
        let slot = Slot(
            station: StationID("S\(raw.station % 2)"), socket: SocketID("\(raw.socket % 2 + 1)"),
            date: world.dstDate.adding(days: raw.day % 2), hour: raw.hour % 6 + 8)
        let earlier = model.bookings.isEmpty ? nil : model.bookings[(raw.extra + 8 * raw.socket) % model.bookings.count]
        switch raw.kind {
        case 0..<35: return .reserve(slot, user)
        case 35..<54:
            guard let earlier else { return .checkIn(BookingID(424_242), user) }
            return .checkIn(earlier.id, raw.user == 3 ? user : earlier.user)
        case 54..<60:
            guard let earlier else { return .checkOut(BookingID(424_242), user) }
            return .checkOut(earlier.id, raw.user == 3 ? user : earlier.user)
        case 60..<66:
            guard let earlier else { return .cancel(BookingID(424_242), user) }
            return .cancel(earlier.id, earlier.user)
        case 66..<86: return .advance(Int64(raw.extra + 1) * 600)
        case 86..<92: return .advance(-Int64(raw.extra + 1) * 600)
        default: return .query(user)
        }
    }

    enum Result: Equatable {
        case booking(Booking)
        case refused(Rejection.Reason)
        case split([[Booking]])
        case none
    }

    static func split(_ b: UserBookings) -> Result { .split([b.upcoming, b.fulfilled, b.noShow, b.cancelled, b.past]) }

    static func run(_ command: CheckInCommand, on ledger: inout Ledger, at now: Instant) -> Result {
        do throws(Rejection) {
            switch command {
            case .reserve(let slot, let user):
                return .booking(try ledger.reserve(ReservationRequest(slot: slot, user: user), at: now))
            case .checkIn(let id, let user): return .booking(try ledger.checkIn(id, by: user, at: now))
            case .checkOut(let id, let user): return .booking(try ledger.checkOut(id, by: user, at: now))
            case .cancel(let id, let user): return .booking(try ledger.cancel(id, by: user, at: now))
            case .advance: return .none
            case .query(let user): return split(ledger.bookings(of: user, at: now))
            }
        } catch { return .refused(error.reason) }
    }

    static func run(_ command: CheckInCommand, on scheduler: Scheduler, at now: Instant) -> Result {
        do throws(Rejection) {
            switch command {
            case .reserve(let slot, let user):
                return .booking(try scheduler.reserve(ReservationRequest(slot: slot, user: user), at: now))
            case .checkIn(let id, let user): return .booking(try scheduler.checkIn(id, by: user, at: now))
            case .checkOut(let id, let user): return .booking(try scheduler.checkOut(id, by: user, at: now))
            case .cancel(let id, let user): return .booking(try scheduler.cancel(id, by: user, at: now))
            case .advance: return .none
            case .query(let user): return split(scheduler.bookings(of: user, at: now))
            }
        } catch { return .refused(error.reason) }
    }

    static func run(_ command: CheckInCommand, on model: inout ReferenceModel, at now: Instant) -> Result {
        func map(_ result: ModelResult<Booking>) -> Result {
            switch result {
            case .success(let booking): .booking(booking)
            case .failure(let reason): .refused(reason)
            }
        }
        switch command {
        case .reserve(let slot, let user):
            return map(model.reserve(ReservationRequest(slot: slot, user: user), at: now))
        case .checkIn(let id, let user): return map(model.checkIn(id, by: user, at: now))
        case .checkOut(let id, let user): return map(model.checkOut(id, by: user, at: now))
        case .cancel(let id, let user): return map(model.cancel(id, by: user, at: now))
        case .advance: return .none
        case .query(let user):
            let s = model.split(of: user, at: now)
            return .split([s.upcoming, s.fulfilled, s.noShow, s.cancelled, s.past])
        }
    }

    /// Runs `commands`, checking after every step that the ledger, the scheduler and the model
    /// agree, a refusal changed nothing, the journal, the snapshot and its JSON rebuild the same
    /// state (check-ins included), and `check` holds.
    static func runCheckIns(
        _ world: CheckInWorld, _ commands: [RawCommand],
        check: (_ command: CheckInCommand, _ result: Result, _ isNew: Bool, _ ledger: Ledger, _ now: Instant) -> Bool
    ) {
        guard let rules = try? Rules(catalog: try Catalog(world.world.stations), policy: world.policy) else {
            Issue.record("the library refused the world \(world)")
            return
        }
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 1, userStripes: 4)
        var model = ReferenceModel(stations: world.world.stations, policy: world.policy)
        var now = world.startNow
        var trace: [String] = []
        for raw in commands {
            let command = resolve(raw, world: world.world, model: model)
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
            let snapshot = ledger.snapshot()
            guard scheduler.snapshot() == snapshot else { return fail("the scheduler's snapshot differs") }
            guard let replayed = try? Ledger(rules: rules, replaying: ledger.events), replayed.snapshot() == snapshot
            else { return fail("the journal does not replay to the same state") }
            guard let json = try? JSONEncoder().encode(snapshot),
                let decoded = try? JSONDecoder().decode(Snapshot.self, from: json),
                let restored = try? Ledger(rules: rules, snapshot: decoded), restored.snapshot() == snapshot
            else { return fail("the snapshot does not restore the same state") }
            for user in 1...3 {
                let id = UserID(UInt64(user))
                guard restored.bookings(of: id, at: now) == ledger.bookings(of: id, at: now),
                    replayed.bookings(of: id, at: now) == ledger.bookings(of: id, at: now)
                else { return fail("user \(user)'s bookings differ after a restore") }
            }
            guard check(command, result, ledger.eventCount != before.eventCount, ledger, now) else {
                return fail("invariant broken")
            }
            if case .advance(let seconds) = command {
                now = Instant(secondsSinceEpoch: now.secondsSinceEpoch + seconds)
            }
        }
    }

    /// I18 `checkInWindow`: a check-in is accepted only in its window (start − early included,
    /// start + grace excluded) and a no-show never counts as fulfilled: every booking's
    /// check-in lies in its window, and each user's upcoming, fulfilled, no-show and cancelled
    /// lists are disjoint and hold every booking of theirs.
    @Test func I18_checkInWindow() async {
        await propertyCheck(count: Self.count, input: Self.worlds, Generators.commands) { world, commands in
            let early = world.policy.earlyCheckInSeconds
            let grace = world.policy.noShowGraceSeconds
            Self.runCheckIns(world, commands) { command, result, isNew, ledger, now in
                for booking in ledger.allBookings {
                    guard let at = booking.checkedInAt?.secondsSinceEpoch else { continue }
                    let start = booking.start.secondsSinceEpoch
                    if at < start - early || at >= start + grace {
                        Issue.record("booking \(booking.id) starting \(booking.start) was checked in at \(at)")
                        return false
                    }
                }
                if case .checkIn = command, case .booking(let booking) = result, isNew,
                    booking.checkedInAt != now
                {
                    Issue.record("a new check-in at \(now) recorded \(String(describing: booking.checkedInAt))")
                    return false
                }
                for user in 1...3 {
                    let id = UserID(UInt64(user))
                    let split = ledger.bookings(of: id, at: now)
                    let lists = [split.upcoming, split.fulfilled, split.noShow, split.cancelled].map { $0.map(\.id) }
                    let all = lists.flatMap { $0 }
                    let mine = ledger.allBookings.filter { $0.user == id }.map(\.id)
                    if Set(all).count != all.count || Set(all) != Set(mine) {
                        Issue.record("user \(user)'s lists \(lists) are not a partition of \(mine)")
                        return false
                    }
                    if split.noShow.contains(where: { $0.checkedInAt != nil })
                        || split.fulfilled.contains(where: { $0.checkedInAt == nil })
                    {
                        Issue.record("user \(user): a no-show counted as fulfilled")
                        return false
                    }
                }
                return true
            }
        }
    }

    /// I19 `noShowLimit`: after every accepted reservation, while its user has had at least `k`
    /// no-shows among their other bookings that started in the last `d` days, their upcoming
    /// bookings do not exceed the lowered limit.
    @Test func I19_noShowLimit() async {
        await propertyCheck(count: Self.count, input: Self.worlds, Generators.commands) { world, commands in
            Self.runCheckIns(world, commands) { command, result, isNew, ledger, now in
                guard let rule = world.policy.noShowLimit, case .reserve(_, let user) = command,
                    case .booking(let made) = result, isNew
                else { return true }
                // The booking just made is not among those its admission counted: with no grace, a
                // booking made at its start is a no-show at once.
                let since = now.secondsSinceEpoch - Int64(rule.days) * 86_400
                let noShows = ledger.bookings(of: user, at: now).noShow.filter {
                    $0.id != made.id && $0.start.secondsSinceEpoch >= since
                }
                guard noShows.count >= rule.noShows else { return true }
                let upcoming = ledger.allBookings.filter { $0.user == user && $0.isUpcoming(at: now) }.count
                if upcoming > rule.limit {
                    Issue.record("user \(user) has \(noShows.count) no-shows and \(upcoming) upcoming bookings")
                    return false
                }
                return true
            }
        }
    }

    /// I21 `checkOutEndsSession`: a check-out is accepted only of a checked-in, active booking by
    /// its owner; it leaves the booking fulfilled with its check-out at `now`, its slot free and no
    /// longer counted; after every step a booking is fulfilled exactly when it was checked out,
    /// and no socket is in two sessions at once.
    @Test func I21_checkOutEndsSession() async {
        await propertyCheck(count: Self.count, input: Self.worlds, Generators.commands) { world, commands in
            Self.runCheckIns(world, commands) { command, result, isNew, ledger, now in
                if case .checkOut(let id, let user) = command, case .booking(let ended) = result {
                    guard ended.status == .fulfilled, ended.checkedOutAt == now, ended.checkedInAt != nil,
                        ended.user == user, ended.id == id, isNew,
                        (try? ledger.status(of: ended.slot, at: now)) != .booked
                    else {
                        Issue.record("check-out of \(id) at \(now) left \(ended)")
                        return false
                    }
                }
                let problems = SessionCheck.problems(ledger.allBookings, rules: ledger.rules)
                if !problems.isEmpty {
                    Issue.record("\(problems)")
                    return false
                }
                return true
            }
        }
    }
}
