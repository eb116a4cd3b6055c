import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// The one specification of a booking's session (check-in window, check-out after check-in, a
/// move clearing a check-in), held against the library itself: every history a real `Ledger`
/// answers is accepted, and every one with a single answer turned into its opposite is not.
@Suite("A booking's session specification")
struct SessionSpecificationTests {
    /// Check-in from 15 minutes before the hour to 10 minutes after it starts; a cancel until 10
    /// minutes before it, a move until 20.
    static let policy = Policy(
        maxUpcomingBookings: 5, cancellationCutoff: .seconds(600), rescheduleCutoff: .seconds(1_200),
        earlyCheckIn: .seconds(900), noShowGrace: .seconds(600))
    static let station = Station(
        id: "S", name: "Session", city: "London", timeZone: "Europe/London",
        sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])

    /// What an answer of the ledger is to the session, or `nil` if nothing.
    static func kind(_ command: String, _ refusal: Rejection.Reason?) -> BookingOperation.Kind? {
        switch (command, refusal) {
        case ("checkIn", nil): .checkedIn
        case ("checkIn", .checkInNotOpen): .refusedNotOpen
        case ("checkIn", .checkInClosed): .refusedClosed
        case ("checkOut", nil): .checkedOut
        case ("checkOut", .notCheckedIn): .refusedNotCheckedIn
        case ("cancel", nil): .released
        case ("cancel", .cancellationCutoffPassed): .refusedCancelCutoff
        case ("move", nil): .moved
        case ("move", .rescheduleCutoffPassed): .refusedMoveCutoff
        default: nil
        }
    }

    /// One booking's life on a real ledger, from `seed`: made, then check-ins, check-outs, moves
    /// and a rare cancel at moments around its hour (moves and cancels on either side of their
    /// cutoffs), each answer recorded as the session sees it.
    static func life(seed: UInt64) throws -> [BookingOperation] {
        var rng = SplitMix64(seed: seed)
        var ledger = Ledger(rules: try Rules(catalog: try Catalog([station]), policy: policy))
        let date = try LocalDate(parsing: "2026-06-10")
        let slot = { (hour: Int) in Slot(station: "S", socket: "1", date: date, hour: hour) }
        var hour = 10
        let made = try ledger.reserve(ReservationRequest(slot: slot(hour), user: 1), at: Instant.utc(date, hour: 0))
        var start = made.start.secondsSinceEpoch
        var ops = [BookingOperation(kind: .reserved, booking: 1, now: 0, start: start, invoke: 0, complete: 1)]
        var now = start - 1_800
        for step in 1...10 {
            now += Int64(rng.next() % 600)
            let pick = rng.next() % 20
            let command = pick < 9 ? "checkIn" : pick < 17 ? "checkOut" : pick < 19 ? "move" : "cancel"
            let at = Instant(secondsSinceEpoch: now)
            var refusal: Rejection.Reason?
            do {
                switch command {
                case "checkIn": _ = try ledger.checkIn(made.id, by: 1, at: at)
                case "checkOut": _ = try ledger.checkOut(made.id, by: 1, at: at)
                case "cancel": _ = try ledger.cancel(made.id, by: 1, at: at)
                default:
                    let moved = try ledger.reschedule(
                        RescheduleRequest(booking: made.id, user: 1, to: slot(hour + 1)), at: at)
                    hour += 1
                    start = moved.booking.start.secondsSinceEpoch
                }
            } catch { refusal = error.reason }
            guard let kind = kind(command, refusal) else { continue }
            let time = Int64(2 * step)
            ops.append(
                BookingOperation(
                    kind: kind, booking: 1, now: now, start: kind == .moved ? start : 0, invoke: time,
                    complete: time + 1))
        }
        return ops
    }

    static func spec(_ ops: [BookingOperation]) -> SessionSpecification {
        SessionSpecification(ops, initial: .init(start: nil), rules: ModelRules(policy: policy))
    }

    /// The opposite answer of a check-in, a check-out, a cancel or a move, as another store could
    /// give it.
    static func flipped(_ kind: BookingOperation.Kind) -> [BookingOperation.Kind] {
        switch kind {
        case .checkedIn: [.refusedNotOpen, .refusedClosed]
        case .refusedNotOpen, .refusedClosed: [.checkedIn]
        case .checkedOut: [.refusedNotCheckedIn]
        case .refusedNotCheckedIn: [.checkedOut]
        case .released: [.refusedCancelCutoff]
        case .refusedCancelCutoff: [.released]
        case .moved: [.refusedMoveCutoff]
        case .refusedMoveCutoff: [.moved]
        default: []
        }
    }

    @Test func acceptsWhatTheLedgerAnswersAndNoSingleWrongAnswer() throws {
        var flips = 0
        for seed in UInt64(0)..<150 {
            let ops = try Self.life(seed: seed)
            #expect(Self.spec(ops).firstViolation() == nil, "seed \(seed)")
            let intervals = ops.map { ($0.invoke, $0.complete) }
            #expect(LinearizabilityChecker.check(Self.spec(ops), intervals: intervals) == .linearizable)
            for (i, op) in ops.enumerated() {
                for kind in Self.flipped(op.kind) {
                    var wrong = ops
                    wrong[i].kind = kind
                    flips += 1
                    #expect(Self.spec(wrong).firstViolation()?.index == i, "seed \(seed), answer \(i) as \(kind)")
                }
            }
        }
        // The lives reach every kind of answer often enough to mean something.
        #expect(flips > 300)
    }

    /// Each operation is judged over the moments it may have run at: a first check-in is wrong
    /// only if the window was shut at all of them.
    @Test func judgesOverTheMomentsOfACall() {
        let start: Int64 = 100_000
        func checkIn(from: Int64, to: Int64) -> SessionSpecification.Violation? {
            var op = BookingOperation(kind: .checkedIn, booking: 1, now: from, invoke: 2, complete: 3)
            op.latest = to
            let made = BookingOperation(kind: .reserved, booking: 1, start: start, invoke: 0, complete: 1)
            return Self.spec([made, op]).firstViolation()?.violation
        }
        #expect(checkIn(from: start - 1_000, to: start - 901) == .checkedInBeforeWindow(opensAt: start - 900))
        #expect(checkIn(from: start - 1_000, to: start - 900) == nil)
        #expect(checkIn(from: start + 599, to: start + 700) == nil)
        #expect(checkIn(from: start + 600, to: start + 700) == .checkedInAfterWindow(closesAt: start + 600))
    }

    /// A check-in of unknown outcome lets a check-out be answered either way; a move clears a
    /// check-in; nothing is accepted after the end. (Moves and cancels come half an hour before
    /// the hour, before their cutoffs.)
    @Test func unknownCheckInsMovesAndTheEnd() {
        let start: Int64 = 100_000
        func ops(_ kinds: [BookingOperation.Kind]) -> [BookingOperation] {
            kinds.enumerated().map { i, kind in
                BookingOperation(
                    kind: kind, booking: 1, now: kind == .moved || kind == .released ? start - 1_800 : start,
                    start: start, invoke: Int64(2 * i), complete: Int64(2 * i + 1))
            }
        }
        #expect(Self.spec(ops([.reserved, .maybeCheckedIn, .checkedOut])).firstViolation() == nil)
        #expect(Self.spec(ops([.reserved, .maybeCheckedIn, .refusedNotCheckedIn])).firstViolation() == nil)
        #expect(
            Self.spec(ops([.reserved, .checkedIn, .moved, .checkedOut])).firstViolation()?.violation
                == .checkedOutWithoutCheckIn)
        #expect(
            Self.spec(ops([.reserved, .checkedIn, .checkedOut, .checkedIn])).firstViolation()?.violation
                == .acceptedAfterEnd(checkIn: true))
        #expect(
            Self.spec(ops([.reserved, .released, .checkedOut])).firstViolation()?.violation
                == .acceptedAfterEnd(checkIn: false))
    }

    /// A move of a checked-in booking to its own slot clears the check-in, as every move does
    /// (the ledger, and the reference model, say so), and the repeat of a move's request does
    /// not: the session takes an accepted move that left the booking in place as either. The
    /// threads-mode check took it for no move at all, and flagged the ledger's refusal of a
    /// later check-in as closed (I18, seen once in CI under load).
    @Test func aMoveInPlaceMayClearTheCheckIn() throws {
        // Moves allowed until a minute before the hour, so within the check-in window.
        var policy = Self.policy
        policy.rescheduleCutoffSeconds = 60
        var ledger = Ledger(rules: try Rules(catalog: try Catalog([Self.station]), policy: policy))
        let date = try LocalDate(parsing: "2026-06-10")
        let slot = Slot(station: "S", socket: "1", date: date, hour: 10)
        let made = try ledger.reserve(ReservationRequest(slot: slot, user: 1), at: Instant.utc(date, hour: 0))
        let start = made.start.secondsSinceEpoch
        _ = try ledger.checkIn(made.id, by: 1, at: Instant(secondsSinceEpoch: start - 600))
        _ = try ledger.reschedule(
            RescheduleRequest(booking: made.id, user: 1, to: slot), at: Instant(secondsSinceEpoch: start - 300))
        let late = #expect(throws: Rejection.self) {
            try ledger.checkIn(made.id, by: 1, at: Instant(secondsSinceEpoch: start + 1_200))
        }
        #expect(late?.reason == .checkInClosed)
        func ops(_ kinds: [BookingOperation.Kind]) -> [BookingOperation] {
            kinds.enumerated().map { i, kind in
                BookingOperation(
                    kind: kind, booking: 1, now: kind == .refusedClosed || i == 4 ? start + 1_200 : start - 600,
                    start: start, invoke: Int64(2 * i), complete: Int64(2 * i + 1))
            }
        }
        // The ledger's answers, and a repeat's (the check-in kept: a later one returns it).
        #expect(Self.spec(ops([.reserved, .checkedIn, .movedInPlace, .refusedClosed])).firstViolation() == nil)
        #expect(Self.spec(ops([.reserved, .checkedIn, .movedInPlace, .checkedOut])).firstViolation() == nil)
        #expect(Self.spec(ops([.reserved, .checkedIn, .movedInPlace, .refusedNotCheckedIn])).firstViolation() == nil)
        // Without the move, the refusal is wrong: the booking was checked in.
        #expect(
            Self.spec(ops([.reserved, .checkedIn, .refusedClosed])).firstViolation()?.violation
                == .refusedAsClosed(window: (start - 900)..<(start + 600)))
        // A booking never checked in stays so: a move in place does not check it in.
        #expect(
            Self.spec(ops([.reserved, .movedInPlace, .checkedOut])).firstViolation()?.violation
                == .checkedOutWithoutCheckIn)
    }
}
