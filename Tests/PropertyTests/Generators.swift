import Foundation
import PropertyBased
import SlotScheduler
import SlotSimulation

/// How many cases each property runs: the default, or `PROPERTY_ITERATIONS` when it is larger.
func iterations(_ defaultCount: Int) -> Int {
    let requested = ProcessInfo.processInfo.environment["PROPERTY_ITERATIONS"].flatMap { Int($0) } ?? 0
    return max(defaultCount, requested)
}

/// A generated world: two Europe/London stations, a policy, and a starting clock next to a DST change.
struct WorldSpec: Sendable, CustomStringConvertible {
    /// Sockets of station S0 (open all day) and S1 (open `openFrom ..< openFrom + 14`).
    var sockets0: Int
    var sockets1: Int
    var openFrom: Int
    var limit: Int
    /// 0 unlimited, 1 last date (DST day + `horizonDays` - 1), 2 rolling `horizonDays` days.
    var horizonKind: Int
    var horizonDays: Int
    var noticeHalfHours: Int
    var cutoffHalfHours: Int
    /// 0: around 2018-03-25 (spring forward); 1: around 2018-10-28 (fall back).
    var season: Int
    /// Half hours after 20:00 UTC the day before the DST change.
    var startHalfHours: Int
    /// Per-user overrides of `limit` (``Policy/userLimits``) for users 1 and 2: 0 none, `n` a
    /// limit of `n - 1`.
    var limitOfUser1 = 0
    var limitOfUser2 = 0
    /// ``Policy/rescheduleCutoffSeconds``: 0 `nil` (the cancellation cutoff applies), `n`
    /// `n - 1` half hours.
    var rescheduleCutoffCode = 0
    /// ``Policy/noShowLimit``: 0 none; `n` no-shows among the bookings that started in the last
    /// `noShowDays` days lower the limit to `noShowLimit`.
    var noShows = 0
    var noShowDays = 1
    var noShowLimit = 0
    /// ``Policy/noShowGraceSeconds`` in quarter hours (4, the default, is the whole hour): a
    /// booking not checked in is a no-show from its start plus the grace.
    var graceQuarters = 4
    /// How far a clock move forward goes: `extra + 1` times this many half hours (1, the
    /// default: 30 minutes to 4 hours; up to 12: whole days pass, so bookings end and become
    /// no-shows while the same users book again).
    var advanceHalfHours = 1

    var description: String {
        "WorldSpec(sockets0: \(sockets0), sockets1: \(sockets1), openFrom: \(openFrom), limit: \(limit), "
            + "horizonKind: \(horizonKind), horizonDays: \(horizonDays), noticeHalfHours: \(noticeHalfHours), "
            + "cutoffHalfHours: \(cutoffHalfHours), season: \(season), startHalfHours: \(startHalfHours), "
            + "limitOfUser1: \(limitOfUser1), limitOfUser2: \(limitOfUser2), "
            + "rescheduleCutoffCode: \(rescheduleCutoffCode), noShows: \(noShows), noShowDays: \(noShowDays), "
            + "noShowLimit: \(noShowLimit), graceQuarters: \(graceQuarters), advanceHalfHours: \(advanceHalfHours))"
    }

    /// The date of the DST change.
    var dstDate: LocalDate {
        LocalDate(dayNumber: season == 0 ? 17_615 : 17_832)  // 2018-03-25, 2018-10-28
    }

    var stations: [Station] {
        [
            Station(
                id: "S0", name: "Zero", city: "London", timeZone: "Europe/London",
                sockets: (1...sockets0).map { Socket(id: SocketID("\($0)"), connector: .type2, powerKW: 22) }),
            Station(
                id: "S1", name: "One", city: "London", timeZone: "Europe/London",
                sockets: (1...sockets1).map { Socket(id: SocketID("\($0)"), connector: .ccs, powerKW: 50) },
                openingHours: HourSet(openFrom..<(openFrom + 14))),
        ]
    }

    var policy: Policy {
        let horizon: Policy.Horizon =
            switch horizonKind {
            case 1: .lastDate(dstDate.adding(days: horizonDays - 1))
            case 2: .rollingDays(horizonDays)
            default: .unlimited
            }
        let userLimits = [(UserID(1), limitOfUser1), (UserID(2), limitOfUser2)].compactMap { user, code in
            code == 0 ? nil : Policy.UserLimit(user: user, limit: code - 1)
        }
        return Policy(
            maxUpcomingBookings: limit, horizon: horizon, minimumNotice: .seconds(noticeHalfHours * 1_800),
            cancellationCutoff: .seconds(cutoffHalfHours * 1_800), userLimits: userLimits,
            rescheduleCutoff: rescheduleCutoffCode == 0 ? nil : .seconds((rescheduleCutoffCode - 1) * 1_800),
            earlyCheckIn: .seconds(900), noShowGrace: .seconds(graceQuarters * 900),
            noShowLimit: noShows == 0 ? nil : Policy.NoShowLimit(noShows: noShows, days: noShowDays, limit: noShowLimit)
        )
    }

    var startNow: Instant {
        Instant(
            secondsSinceEpoch: Int64(dstDate.dayNumber - 1) * 86_400 + 20 * 3_600 + Int64(startHalfHours) * 1_800)
    }

    /// The library's rules for this world, or an issue if it refuses them.
    var rules: Rules? {
        do { return try Rules(catalog: try Catalog(stations), policy: policy) } catch {
            return nil
        }
    }
}

/// One generated command as plain integers, so every field shrinks toward a simple value.
/// ``Command/resolve(_:world:model:history:)`` interprets it against the current state.
struct RawCommand: Sendable, CustomStringConvertible {
    /// 0..<45 reserve (30..<38 near `now`), 45..<55 repeat an earlier request, 55..<72 cancel, 72..<85 availability
    /// change, 85..<93 advance `now`, 93..<95 move `now` back, 95...99 query.
    var kind: Int
    var station: Int  // 0...2; 2 is an unknown station
    var socket: Int  // 0...3
    var day: Int  // 0...3: DST day - 1 ... DST day + 2
    var hour: Int  // 0...24; 24 is an invalid hour
    var user: Int  // 0...3
    var request: Int  // 0...4: no id, or r0...r2
    var extra: Int  // 0...7

    var description: String {
        "RawCommand(kind: \(kind), station: \(station), socket: \(socket), day: \(day), hour: \(hour), "
            + "user: \(user), request: \(request), extra: \(extra))"
    }
}

enum Generators {
    /// Every field of ``WorldSpec``, so every ``Policy`` field the main properties run with is
    /// varied (``PolicyCoverageTests`` checks it); holds and check-in windows are varied by the
    /// hold and check-in properties' own worlds.
    static let world = zip(
        zip(
            Gen.int(in: 1...3), Gen.int(in: 1...2), Gen.int(in: 0...8), Gen.int(in: 0...4), Gen.int(in: 0...2),
            Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...1), Gen.int(in: 0...12)),
        zip(
            Gen.int(in: 0...4), Gen.int(in: 0...4), Gen.int(in: 0...4), Gen.int(in: 0...2), Gen.int(in: 1...3),
            Gen.int(in: 0...2), Gen.int(in: 0...4), Gen.int(in: 1...12))
    ).map { t, u in
        WorldSpec(
            sockets0: t.0, sockets1: t.1, openFrom: t.2, limit: t.3, horizonKind: t.4, horizonDays: t.5,
            noticeHalfHours: t.6, cutoffHalfHours: t.7, season: t.8, startHalfHours: t.9, limitOfUser1: u.0,
            limitOfUser2: u.1, rescheduleCutoffCode: u.2, noShows: u.3, noShowDays: u.4, noShowLimit: u.5,
            graceQuarters: u.6, advanceHalfHours: u.7)
    }

    static let command = zip(
        Gen.int(in: 0...99), Gen.int(in: 0...2), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...24),
        Gen.int(in: 0...3), Gen.int(in: 0...4), Gen.int(in: 0...7)
    ).map { t in
        RawCommand(
            kind: t.0, station: t.1, socket: t.2, day: t.3, hour: t.4, user: t.5, request: t.6, extra: t.7)
    }

    static let commands = command.array(of: 0...40)

    /// Commands as time passes: reservations near `now` (its hour and the next three), clock moves
    /// forward, cancels and queries, so bookings end and become no-shows while their users book
    /// again. `commands` books days around the DST change whatever `now` is, and rarely moves the
    /// clock past a booking, so a limit lowered by no-shows is seldom what decides there.
    static let timePassingCommand = zip(
        Gen.int(in: 0...99), Gen.int(in: 0...2), Gen.int(in: 0...3), Gen.int(in: 0...3), Gen.int(in: 0...24),
        Gen.int(in: 0...3), Gen.int(in: 0...4), Gen.int(in: 0...7)
    ).map { t in
        RawCommand(
            kind: timePassingKind(t.0), station: t.1, socket: t.2, day: t.3, hour: t.4, user: t.5, request: t.6,
            extra: t.7)
    }

    static let timePassingCommands = timePassingCommand.array(of: 0...40)

    /// Half the draws reserve near `now` (30..<38), a quarter move the clock forward (85..<93), the
    /// rest cancel (55..<72) or query (95...99).
    static func timePassingKind(_ k: Int) -> Int {
        switch k {
        case 0..<50: 30 + k % 8
        case 50..<75: 85 + k % 8
        case 75..<90: 55 + k % 17
        default: 95 + k % 5
        }
    }
}

/// A command made concrete against the current state (booking ids are the model's).
enum Command: Sendable, Equatable, CustomStringConvertible {
    case reserve(ReservationRequest)
    case cancel(BookingID, by: UserID)
    case change(AvailabilityChange, DisplacementRule)
    case advance(seconds: Int64)
    case queryUser(UserID)
    case queryDay(StationID, LocalDate)

    var description: String {
        switch self {
        case .reserve(let r):
            let rid = r.requestID.map { " id \($0)" } ?? ""
            let rem = r.reminder.map { " reminder \($0.components.seconds)s" } ?? ""
            return "reserve \(r.slot) for \(r.user)\(rid)\(rem)"
        case .cancel(let id, let user): return "cancel \(id) by \(user)"
        case .change(let change, let rule): return "change \(change) (\(rule))"
        case .advance(let seconds): return "advance \(seconds)s"
        case .queryUser(let user): return "query bookings of \(user)"
        case .queryDay(let station, let date): return "query day \(station) \(date)"
        }
    }

    static func resolve(
        _ raw: RawCommand, world: WorldSpec, model: ReferenceModel, history: [ReservationRequest], now: Instant
    ) -> Command {
        let station: StationID = raw.station == 2 ? "S9" : StationID("S\(raw.station)")
        let date = world.dstDate.adding(days: raw.day - 1)
        let user = UserID(UInt64(raw.user + 1))
        switch raw.kind {
        case 30..<38:
            // The local hour `now` falls in, plus 0...3 hours: boundaries of past, notice and DST.
            let local = now.secondsSinceEpoch + WallClock.offset(at: now.secondsSinceEpoch)
            let hourStart = (local / 3_600 + Int64(raw.hour % 4)) * 3_600
            let slot = Slot(
                station: station, socket: SocketID("\(raw.socket + 1)"),
                date: LocalDate(dayNumber: Int32(hourStart / 86_400)), hour: Int(hourStart % 86_400 / 3_600))
            return .reserve(ReservationRequest(slot: slot, user: user))
        case 0..<45:
            let slot = Slot(station: station, socket: SocketID("\(raw.socket + 1)"), date: date, hour: raw.hour)
            let requestID: RequestID? = raw.request >= 2 ? RequestID("r\(raw.request - 2)") : nil
            let reminder: Duration? = raw.kind >= 38 ? .seconds(raw.extra * 1_800 - 1_800) : nil
            return .reserve(ReservationRequest(slot: slot, user: user, requestID: requestID, reminder: reminder))
        case 45..<55:
            guard !history.isEmpty else { return .advance(seconds: 0) }
            var request = history[(raw.extra + 8 * raw.socket) % history.count]
            if request.requestID == nil { request.requestID = "r0" }
            if raw.kind >= 50 { request.slot.hour = (request.slot.hour + 1) % 24 }
            return .reserve(request)
        case 55..<72:
            guard !model.bookings.isEmpty else { return .cancel(BookingID(424_242), by: user) }
            let booking = model.bookings[(raw.extra + 8 * raw.socket) % model.bookings.count]
            let owner = raw.user == 0 ? UserID(booking.user.rawValue % 4 + 1) : booking.user
            return .cancel(booking.id, by: owner)
        case 72..<85:
            let socket: SocketID? = raw.socket == 0 ? nil : SocketID("\(raw.socket)")
            let hours: HourSet? =
                switch raw.extra % 3 {
                case 0: .closed
                case 1: nil
                default: HourSet(raw.hour..<(raw.hour + 4))
                }
            let change = AvailabilityChange(station: station, socket: socket, date: date, hours: hours)
            return .change(change, raw.request % 2 == 0 ? .displace : .refuse)
        case 85..<93:
            return .advance(seconds: Int64(raw.extra + 1) * Int64(world.advanceHalfHours) * 1_800)
        case 93..<95:
            // Callers' clocks differ: a later command may carry an earlier `now`.
            return .advance(seconds: -Int64(raw.extra + 1) * 1_800)
        default:
            return raw.extra % 2 == 0 ? .queryUser(user) : .queryDay(station, date)
        }
    }
}
