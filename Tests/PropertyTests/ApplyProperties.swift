import PropertyBased
import SlotScheduler
import Testing

/// The one apply (`Ledger.apply`, `Scheduler.apply`): commands of every kind, each checked as
/// it is applied.
@Suite struct ApplyProperties {
    static let count = iterations(200)

    /// `oneApply`: for every command, the events the ledger journalled are exactly the outcome's
    /// `events(at:)` (the one statement of what a command journals, which the journal store
    /// makes durable), a refusal journals nothing, the books stay consistent
    /// (`_consistencyProblems()` is empty after every step), and a one-shard scheduler's apply
    /// gives the same outcome.
    @Test func oneApply() async {
        await propertyCheck(count: Self.count, input: Generators.world, Generators.commands) { world, raws in
            guard let rules = world.rules else {
                Issue.record("the library refused the generated world \(world)")
                return
            }
            var ledger = Ledger(rules: rules)
            let scheduler = Scheduler(rules: rules, shards: 1, userStripes: 4)
            var now = world.startNow
            var made: [BookingID] = []
            var trace: [String] = []
            for raw in raws {
                if (90..<100).contains(raw.kind) {
                    now = Instant(
                        secondsSinceEpoch: now.secondsSinceEpoch + Int64(raw.extra + 1) * (raw.kind < 97 ? 900 : -900))
                    continue
                }
                let command = Self.command(raw, world: world, made: made)
                let before = ledger.eventCount
                let outcome = ledger.apply(command, at: now)
                trace.append("\(command) at \(now) -> \(outcome)")
                let journalled = ledger.events(since: before)
                let problems = ledger._consistencyProblems()
                let fromScheduler = scheduler.apply(command, at: now)
                #expect(journalled == outcome.events(at: now), "journalled \(journalled)")
                #expect(problems.isEmpty, "inconsistent: \(problems)")
                #expect(fromScheduler == outcome, "the scheduler answered \(fromScheduler)")
                guard journalled == outcome.events(at: now), problems.isEmpty, fromScheduler == outcome else {
                    Issue.record(Comment(rawValue: "in \(world)\n" + trace.joined(separator: "\n")))
                    return
                }
                if case .booked(let r) = outcome, !made.contains(r.booking.id) { made.append(r.booking.id) }
                if case .confirmed(let r) = outcome, !made.contains(r.booking.id) { made.append(r.booking.id) }
            }
        }
    }

    /// A command of any kind drawn from `raw`'s integers: slots of S0, S1 or the unknown S9 (some
    /// sockets unknown, some hours invalid), users 1–4, request ids r0–r2, bookings among those
    /// made (or one never made).
    static func command(_ raw: RawCommand, world: WorldSpec, made: [BookingID]) -> SlotScheduler.Command {
        let station: StationID = raw.station == 2 ? "S9" : StationID("S\(raw.station)")
        let slot = Slot(
            station: station, socket: SocketID("\(raw.socket % 3 + 1)"), date: world.dstDate.adding(days: raw.day - 1),
            hour: raw.hour)
        let user = UserID(UInt64(raw.user + 1))
        let requestID = raw.request >= 2 ? RequestID("r\(raw.request - 2)") : nil
        let booking = made.isEmpty ? BookingID(424_242) : made[(raw.extra + 8 * raw.socket) % made.count]
        switch raw.kind {
        case 0..<25: return .reserve(ReservationRequest(slot: slot, user: user, requestID: requestID))
        case 25..<33:
            return .reserveAnySocket(LifecycleRaw(raw: raw, operation: 0).anySocketRequest(world: world))
        case 33..<45: return .hold(slot, user: user, reminder: raw.extra == 0 ? .seconds(1_800) : nil)
        case 45..<53: return .confirm(slot, user: user)
        case 53..<58: return .releaseHold(slot, user: user)
        case 58..<66:
            return .reschedule(
                RescheduleRequest(
                    booking: booking, user: user, to: slot,
                    requestID: raw.request >= 2 ? RequestID("m\(raw.request - 2)") : nil))
        case 66..<74: return .cancel(booking, user: user)
        case 74..<82: return .checkIn(booking, user: user)
        default:
            let change = AvailabilityChange(
                station: station, socket: raw.socket == 3 ? nil : SocketID("\(raw.socket + 1)"), date: slot.date,
                hours: raw.extra % 2 == 0 ? .closed : nil)
            return .changeAvailability(change, onBookings: raw.extra % 3 == 0 ? .refuse : .displace)
        }
    }
}
