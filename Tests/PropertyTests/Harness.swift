import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// What one command produced, in a form that compares across the ledger, the scheduler and the model.
enum Outcome: Equatable, CustomStringConvertible {
    case booking(Booking)
    case bookings([Booking])
    case refused(Rejection.Reason)
    case advanced
    case userBookings(upcoming: [Booking], past: [Booking])
    case day([[SlotStatus]])

    var description: String {
        switch self {
        case .booking(let b): return "booking \(b.id) \(b.slot) user \(b.user) \(b.status)"
        case .bookings(let bs): return "bookings \(bs.map { "\($0.id) \($0.status)" })"
        case .refused(let reason): return "refused \(reason)"
        case .advanced: return "advanced"
        case .userBookings(let up, let past): return "upcoming \(up.map(\.id)) past \(past.map(\.id))"
        case .day(let hours): return "day \(hours.map { $0.map(\.rawValue) })"
        }
    }

    var isRefusal: Bool {
        if case .refused = self { return true }
        return false
    }
}

/// One executed step: the command, the clock, the ledger before and after, and every outcome.
struct Step {
    var index: Int
    var command: Command
    var now: Instant
    var before: Ledger
    var after: Ledger
    var outcome: Outcome
    var modelOutcome: Outcome
    var model: ReferenceModel
    var schedulerOutcome: Outcome?
    /// The scheduler's bookings with their ids mapped to the model's, sorted by id.
    var schedulerBookings: [Booking]?
    /// The reminders due in a window drawn for the step (``Runner/reminderWindow(_:now:)``), after
    /// it: the ledger's, the model's, and the scheduler's with ids mapped to the model's.
    var reminders: DueReminders
}

/// What each face says is due in one window.
struct DueReminders {
    var window: Range<Instant>
    var ledger: [Reminder]
    var model: [Reminder]
    var scheduler: [Reminder]?
}

/// Runs command sequences against a ``Ledger`` and the ``ReferenceModel`` (and, optionally, a
/// sharded ``Scheduler``), handing every step to a checker.
struct Runner {
    let world: WorldSpec
    let rules: Rules
    var ledger: Ledger
    var model: ReferenceModel
    var scheduler: Scheduler?
    /// Scheduler id of model booking `i + 1`.
    var schedulerIDs: [BookingID] = []
    var now: Instant
    var history: [ReservationRequest] = []
    var index = 0

    init?(world: WorldSpec, schedulerShards: Int? = nil) {
        guard let rules = world.rules else { return nil }
        self.world = world
        self.rules = rules
        ledger = Ledger(rules: rules)
        model = ReferenceModel(stations: world.stations, policy: world.policy)
        scheduler = schedulerShards.map { Scheduler(rules: rules, shards: $0, userStripes: 4) }
        now = world.startNow
    }

    mutating func step(_ raw: RawCommand) -> Step {
        let command = Command.resolve(raw, world: world, model: model, history: history, now: now)
        let before = ledger
        let at = now
        let outcome = Self.apply(command, to: &ledger, at: at)
        let modelOutcome = Self.apply(command, to: &model, at: at)
        var schedulerOutcome: Outcome?
        var schedulerBookings: [Booking]?
        if let scheduler {
            schedulerOutcome = applyToScheduler(command, scheduler, at: at)
            if case .booking(let b) = schedulerOutcome, mapToModel(b.id) == nil { schedulerIDs.append(b.id) }
            schedulerOutcome = schedulerOutcome.map(normalize)
            schedulerBookings = scheduler.allBookings.map { normalize($0) }.sorted { $0.id < $1.id }
        }
        let window = Self.reminderWindow(raw, now: at)
        let reminders = DueReminders(
            window: window, ledger: ledger.remindersDue(in: window), model: model.remindersDue(in: window),
            scheduler: scheduler.map { normalize($0.remindersDue(in: window)) })
        switch command {
        case .reserve(let r): history.append(r)
        case .advance(let seconds): now = Instant(secondsSinceEpoch: now.secondsSinceEpoch + seconds)
        default: break
        }
        defer { index += 1 }
        return Step(
            index: index, command: command, now: at, before: before, after: ledger, outcome: outcome,
            modelOutcome: modelOutcome, model: model, schedulerOutcome: schedulerOutcome,
            schedulerBookings: schedulerBookings, reminders: reminders)
    }

    /// A window of reminders drawn from a command's fields: from 12 hours before `now` to 30 hours
    /// after, 45 minutes to 3 hours long (so its ends fall on and off whole hours), or, for one
    /// draw in five, every instant.
    static func reminderWindow(_ raw: RawCommand, now: Instant) -> Range<Instant> {
        guard raw.request < 4 else { return Instant(secondsSinceEpoch: .min)..<Instant(secondsSinceEpoch: .max) }
        let from = now.secondsSinceEpoch + (Int64(raw.hour) - 12) * 3_600 + Int64(raw.day) * 21_600
        return Instant(secondsSinceEpoch: from)..<Instant(secondsSinceEpoch: from + Int64(raw.socket + 1) * 2_700)
    }

    /// Reminders with the scheduler's booking ids mapped to the model's, in the model's order
    /// (time, then booking id).
    func normalize(_ due: [Reminder]) -> [Reminder] {
        due.map {
            Reminder(booking: mapToModel($0.booking) ?? BookingID(0), user: $0.user, slot: $0.slot, fireAt: $0.fireAt)
        }
        .sorted { ($0.fireAt, $0.booking) < ($1.fireAt, $1.booking) }
    }

    static func apply(_ command: Command, to ledger: inout Ledger, at now: Instant) -> Outcome {
        switch command {
        case .reserve(let request):
            do { return .booking(try ledger.reserve(request, at: now)) } catch { return .refused(error.reason) }
        case .cancel(let id, let user):
            do { return .booking(try ledger.cancel(id, by: user, at: now)) } catch { return .refused(error.reason) }
        case .change(let change, let rule):
            do { return .bookings(try ledger.changeAvailability(change, onBookings: rule, at: now)) } catch {
                return .refused(error.reason)
            }
        case .advance: return .advanced
        case .queryUser(let user):
            let b = ledger.bookings(of: user, at: now)
            return .userBookings(upcoming: b.upcoming, past: b.past)
        case .queryDay(let station, let date):
            do { return .day(try ledger.dayView(of: station, on: date, at: now).sockets.map(\.hours)) } catch {
                return .refused(error.reason)
            }
        }
    }

    static func apply(_ command: Command, to model: inout ReferenceModel, at now: Instant) -> Outcome {
        switch command {
        case .reserve(let request):
            switch model.reserve(request, at: now) {
            case .success(let b): return .booking(b)
            case .failure(let reason): return .refused(reason)
            }
        case .cancel(let id, let user):
            switch model.cancel(id, by: user, at: now) {
            case .success(let b): return .booking(b)
            case .failure(let reason): return .refused(reason)
            }
        case .change(let change, let rule):
            switch model.changeAvailability(change, rule: rule, at: now) {
            case .success(let bs): return .bookings(bs)
            case .failure(let reason): return .refused(reason)
            }
        case .advance: return .advanced
        case .queryUser(let user):
            let b = model.bookings(of: user, at: now)
            return .userBookings(upcoming: b.upcoming, past: b.past)
        case .queryDay(let station, let date):
            guard let info = model.station(station) else { return .refused(.unknownStation) }
            return .day(
                info.sockets.map { socket in
                    (0..<24).map { hour in
                        model.status(
                            of: Slot(station: station, socket: socket.id, date: date, hour: hour), at: now)
                            ?? .closed
                    }
                })
        }
    }

    func applyToScheduler(_ command: Command, _ scheduler: Scheduler, at now: Instant) -> Outcome {
        switch command {
        case .reserve(let request):
            do { return .booking(try scheduler.reserve(request, at: now)) } catch { return .refused(error.reason) }
        case .cancel(let id, let user):
            do { return .booking(try scheduler.cancel(toScheduler(id), by: user, at: now)) } catch {
                return .refused(error.reason)
            }
        case .change(let change, let rule):
            do { return .bookings(try scheduler.changeAvailability(change, onBookings: rule, at: now)) } catch {
                return .refused(error.reason)
            }
        case .advance: return .advanced
        case .queryUser(let user):
            let b = scheduler.bookings(of: user, at: now)
            return .userBookings(upcoming: b.upcoming, past: b.past)
        case .queryDay(let station, let date):
            do { return .day(try scheduler.dayView(of: station, on: date, at: now).sockets.map(\.hours)) } catch {
                return .refused(error.reason)
            }
        }
    }

    func toScheduler(_ id: BookingID) -> BookingID {
        let i = Int(id.rawValue) - 1
        return i >= 0 && i < schedulerIDs.count ? schedulerIDs[i] : id
    }

    func mapToModel(_ id: BookingID) -> BookingID? {
        schedulerIDs.firstIndex(of: id).map { BookingID(UInt64($0 + 1)) }
    }

    func normalize(_ booking: Booking) -> Booking {
        var b = booking
        b.id = mapToModel(booking.id) ?? BookingID(0)
        return b
    }

    func normalize(_ outcome: Outcome) -> Outcome {
        switch outcome {
        case .booking(let b): return .booking(normalize(b))
        case .bookings(let bs): return .bookings(bs.map { normalize($0) })
        case .userBookings(let up, let past):
            return .userBookings(upcoming: up.map { normalize($0) }, past: past.map { normalize($0) })
        default: return outcome
        }
    }
}

/// Runs `commands` in `world`, calling `check` after every step. Stops at the first step that
/// recorded an issue, so a shrunk counterexample ends at the failing step.
func runSequence(
    _ world: WorldSpec, _ commands: [RawCommand], schedulerShards: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    check: (Step) -> Bool
) {
    guard var runner = Runner(world: world, schedulerShards: schedulerShards) else {
        Issue.record("the library refused the generated world \(world)", sourceLocation: sourceLocation)
        return
    }
    var trace: [String] = []
    for raw in commands {
        let step = runner.step(raw)
        trace.append("\(step.index): \(step.command) at \(step.now) -> \(step.outcome)")
        if !check(step) {
            let message = "failed at step \(step.index) of \(world)\n" + trace.joined(separator: "\n")
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            return
        }
    }
}

// MARK: - Helpers shared by the invariant checks

extension Ledger {
    var activeBookings: [Booking] { allBookings.filter { $0.status == .active } }
}

extension Step {
    /// The booking a reserve newly made in this step (not a repeat of an earlier one).
    var newBooking: Booking? {
        guard case .reserve = command, case .booking(let b) = outcome, before.booking(b.id) == nil else { return nil }
        return b
    }

    /// Whether nothing observable changed between `before` and `after`.
    var stateUnchanged: Bool {
        before.snapshot() == after.snapshot() && before.eventCount == after.eventCount
            && (1...5).allSatisfy { u in
                before.bookings(of: UserID(UInt64(u)), at: now) == after.bookings(of: UserID(UInt64(u)), at: now)
            }
    }
}
