import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// Check-ins under `--check rules`, judged against their booking's window: from 15 minutes
/// before the hour to an hour after it starts (the policy's defaults in these rules).
@Suite("Checking the check-in window of a booking API")
struct TargetCheckInWindowTests {
    typealias R = RulesCheckTests
    /// An hour that starts as the run starts (2026-12-01 08:00 in London): its window is open.
    static let now = "S/A/2026-12-01/8"
    /// Booked before the run, by user 1.
    static let before = [ListedBooking(id: "b0", user: 1, slot: now, live: true)]

    static func checkIn(
        _ index: Int, _ booking: String, _ kind: TargetEvent.Kind, reason: String? = nil, at: Int64
    ) -> [TargetEvent] {
        R.cancel(index, user: 1, booking, kind, reason: reason, at: at).map {
            var event = $0
            event.operation = "checkIn"
            return event
        }
    }

    static func judge(_ history: [TargetEvent], adapter: Adapter? = nil) throws -> [SafetyCheck.Finding] {
        let prepared = try R.prepared()
        return RulesCheck.check(
            history: history, before: Self.before, listed: Self.before, prepared: prepared, shiftDays: 0,
            adapter: try adapter ?? R.adapter(), clock: R.clock
        ).findings
    }

    /// ``RulesCheckTests/adapter()`` with a check-in that sends the socket's code.
    static func sendingCodes() throws -> Adapter {
        var adapter = try R.adapter()
        adapter.operations.checkIn = try JSONDecoder().decode(
            Adapter.Request.self,
            from: Data(#"{"method": "POST", "path": "/b/{booking}/in", "body": {"code": "{accessCode}"}}"#.utf8))
        return adapter
    }

    @Test func aCheckInInsideTheWindowIsAnsweredAsMade() throws {
        #expect(try Self.judge(Self.checkIn(0, "b0", .ok, at: 0)).isEmpty)
        let refused = try Self.judge(Self.checkIn(0, "b0", .fail, reason: "checkInNotOpen", at: 0))
        #expect(refused.map(\.invariant) == ["refusals justified"])
        let closed = try Self.judge(Self.checkIn(0, "b0", .fail, reason: "checkInClosed", at: 0))
        #expect(closed.map(\.invariant) == ["refusals justified"])
    }

    @Test func aCheckInBeforeTheWindowOpensIsRefused() throws {
        let made = R.reserve(0, user: 2, R.tomorrow, .ok, booking: "b1", at: 0)
        func checkIn(_ kind: TargetEvent.Kind, reason: String? = nil) -> [TargetEvent] {
            Self.checkIn(1, "b1", kind, reason: reason, at: 1).map {
                var event = $0
                event.user = 2
                return event
            }
        }
        #expect(try Self.judge(made + checkIn(.fail, reason: "checkInNotOpen")).isEmpty)
        let early = try Self.judge(made + checkIn(.ok))
        #expect(early.map(\.invariant) == ["check-in window"])
        #expect(early.first?.explanation.contains("before its window opened") == true)
    }

    /// The window closes an hour after the start; the clock's tolerance (1.5 s) keeps the edge
    /// unjudged.
    @Test func aCheckInAfterTheWindowClosesIsRefused() throws {
        #expect(try Self.judge(Self.checkIn(0, "b0", .fail, reason: "checkInClosed", at: 3_610)).isEmpty)
        let late = try Self.judge(Self.checkIn(0, "b0", .ok, at: 3_610))
        #expect(late.map(\.invariant) == ["check-in window"])
        #expect(try Self.judge(Self.checkIn(0, "b0", .ok, at: 3_599)).isEmpty)
    }

    /// A check-in with a wrong code is never answered as made (the code comes before a repeat and
    /// the window), and its refusal says nothing of the window; the right code is never refused
    /// as wrong.
    @Test func aWrongAccessCodeIsNeverAnsweredAsMade() throws {
        func wrong(_ events: [TargetEvent]) -> [TargetEvent] {
            events.map {
                var event = $0
                if event.kind == .invoke { event.wrongCode = true }
                return event
            }
        }
        let accepted = try Self.judge(wrong(Self.checkIn(0, "b0", .ok, at: 0)))
        #expect(accepted.map(\.invariant) == ["access codes"])
        #expect(accepted.first?.explanation.contains("wrong access code") == true)
        let repeated = Self.checkIn(0, "b0", .ok, at: 0) + wrong(Self.checkIn(1, "b0", .ok, at: 1))
        #expect(try Self.judge(repeated).map(\.invariant) == ["access codes"])
        // Refused as wrong, or for its window (checked first by this API): nothing to say.
        #expect(try Self.judge(wrong(Self.checkIn(0, "b0", .fail, reason: "wrongAccessCode", at: 0))).isEmpty)
        #expect(try Self.judge(wrong(Self.checkIn(0, "b0", .fail, reason: "checkInClosed", at: 0))).isEmpty)
        let right = Self.checkIn(0, "b0", .fail, reason: "wrongAccessCode", at: 0)
        #expect(try Self.judge(right, adapter: Self.sendingCodes()).map(\.invariant) == ["refusals justified"])
        // An adapter that sends no code: the API could not be shown the right one.
        #expect(try Self.judge(right).isEmpty)
    }

    /// A check-in with the code of its booking's socket, refused as wrong while a move of the
    /// booking to socket B was in flight: the move may have come first, so the code may have been
    /// the old socket's (seen with two instances of an API, a worker checking in while another
    /// moved the booking). Refused, or to another hour of the same socket, the move changes no code.
    @Test(arguments: [("S/B/2026-12-01/9", true), ("S/B/2026-12-01/9", false), ("S/A/2026-12-01/9", true)])
    func aCheckInRacingAMoveToAnotherSocketMayFindAnotherCode(_ to: String, _ moved: Bool) throws {
        let history =
            Self.checkIn(0, "b0", .fail, reason: "wrongAccessCode", at: 0)
            + TargetLifecycleCheckTests.move(
                1, user: 1, "b0", to: to, moved ? .ok : .fail, reason: moved ? nil : "taken", at: 0)
        let end = [ListedBooking(id: "b0", user: 1, slot: moved ? to : Self.now, live: true)]
        let findings = RulesCheck.check(
            history: history, before: Self.before, listed: end, prepared: try R.prepared(), shiftDays: 0,
            adapter: try Self.sendingCodes(), clock: R.clock
        ).findings
        let otherSocket = moved && to.hasPrefix("S/B")
        #expect(findings.map(\.invariant) == (otherSocket ? [] : ["refusals justified"]), "\(findings)")
    }

    /// A cancel is answered as made only before its cutoff (zero here: the hour's start; the
    /// clock's tolerance, 1.5 s, keeps the edge unjudged), and refused as past it only after;
    /// each judged in the booking's session.
    @Test func aCancelIsJudgedAgainstItsCutoff() throws {
        let late = try Self.judge(R.cancel(0, user: 1, "b0", .ok, at: 10))
        #expect(late.map(\.invariant) == ["cutoffs"])
        #expect(late.first?.explanation.contains("cancelled after its cutoff") == true)
        #expect(try Self.judge(R.cancel(0, user: 1, "b0", .fail, reason: "cancellationCutoffPassed", at: 10)).isEmpty)
        let made = R.reserve(0, user: 2, R.tomorrow, .ok, booking: "b1", at: 0)
        #expect(try Self.judge(made + R.cancel(1, user: 2, "b1", .ok, at: 1)).isEmpty)
        let early = try Self.judge(made + R.cancel(1, user: 2, "b1", .fail, reason: "cancellationCutoffPassed", at: 1))
        #expect(early.map(\.invariant) == ["refusals justified"])
    }

    /// A booking checked in, then moved to its own slot, loses its check-in (as every store and
    /// the reference model do it): a check-in refused as closed after its window is no
    /// violation. Before, the move was taken for none, and the refusal flagged. Without notice,
    /// so that the move can come inside the window.
    @Test func aMoveInPlaceMayClearTheCheckIn() throws {
        let scenario = Scenario(
            name: "rules", seed: 1,
            stations: [
                Station(
                    id: "S", name: "S", city: "London", timeZone: "Europe/London",
                    sockets: [Socket(id: "A", connector: .ccs, powerKW: 50)])
            ],
            policy: ScenarioPolicy(maxUpcomingBookings: 1, rollingDays: 14),
            clock: ScenarioClock(start: Fixtures.time("2026-11-29T00:00:00Z"), stepSeconds: 1),
            users: UserPopulation(count: 3))
        let prepared = try scenario.prepare(file: "rules.json")
        let nine = "S/A/2026-12-01/9"  // its window: 08:45 to 10:00, 2,700 to 7,200 s into the run
        func asUser2(_ events: [TargetEvent]) -> [TargetEvent] {
            events.map {
                var event = $0
                event.user = 2
                return event
            }
        }
        let made = R.reserve(0, user: 2, nine, .ok, booking: "b1", at: 0)
        let checkedIn = asUser2(Self.checkIn(1, "b1", .ok, at: 2_800))
        let moved = TargetLifecycleCheckTests.move(2, user: 2, "b1", to: nine, .ok, at: 2_900)
        let closed = asUser2(Self.checkIn(3, "b1", .fail, reason: "checkInClosed", at: 7_300))
        func findings(_ history: [TargetEvent]) throws -> [String] {
            let listed = Self.before + [ListedBooking(id: "b1", user: 2, slot: nine, live: true)]
            return RulesCheck.check(
                history: history, before: Self.before, listed: listed, prepared: prepared, shiftDays: 0,
                adapter: try R.adapter(), clock: R.clock
            ).findings.map(\.invariant)
        }
        #expect(try findings(made + checkedIn + moved + closed) == [])
        #expect(try findings(made + checkedIn + closed) == ["refusals justified"])
    }

    /// A repeated check-in is answered as made whenever it comes: only the first is judged.
    @Test func aRepeatedCheckInIsNotJudged() throws {
        let history = Self.checkIn(0, "b0", .ok, at: 0) + Self.checkIn(1, "b0", .ok, at: 3_700)
        #expect(try Self.judge(history).isEmpty)
    }

    static func checkOut(_ index: Int, _ kind: TargetEvent.Kind, reason: String? = nil, at: Int64) -> [TargetEvent] {
        R.cancel(index, user: 1, "b0", kind, reason: reason, at: at).map {
            var event = $0
            event.operation = "checkOut"
            return event
        }
    }

    /// A check-out is answered as made only after a check-in, and refused as not checked in only
    /// before one.
    @Test func aCheckOutNeedsACheckIn() throws {
        #expect(try Self.judge(Self.checkIn(0, "b0", .ok, at: 0) + Self.checkOut(1, .ok, at: 60)).isEmpty)
        #expect(try Self.judge(Self.checkOut(0, .fail, reason: "notCheckedIn", at: 0)).isEmpty)
        let early = try Self.judge(Self.checkOut(0, .ok, at: 0))
        #expect(early.map(\.invariant) == ["check-out after check-in"])
        #expect(early.first?.explanation.contains("without a check-in") == true)
        let refused = try Self.judge(
            Self.checkIn(0, "b0", .ok, at: 0) + Self.checkOut(1, .fail, reason: "notCheckedIn", at: 60))
        #expect(refused.map(\.invariant) == ["check-out after check-in"])
        // A check-in of unknown outcome may have happened: either answer is possible.
        #expect(try Self.judge(Self.checkIn(0, "b0", .info, at: 0) + Self.checkOut(1, .ok, at: 60)).isEmpty)
    }
}
