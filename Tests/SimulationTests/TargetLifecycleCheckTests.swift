import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// Moves and any-socket requests under `--check rules`, and reads under the safety checks.
@Suite("Checking moves, any-socket requests and reads of a booking API")
struct TargetLifecycleCheckTests {
    typealias R = RulesCheckTests
    static let second = RulesCheckTests.second

    static func move(
        _ index: Int, user: UInt64, _ booking: String, to slot: String, _ kind: TargetEvent.Kind, reason: String? = nil,
        at: Int64
    )
        -> [TargetEvent]
    {
        [
            TargetEvent(
                index: index, process: index, kind: .invoke, operation: "reschedule", user: user, slot: slot,
                requestID: "m\(index)", booking: booking, time: at * second),
            TargetEvent(
                index: index, process: index, kind: kind, operation: "reschedule", user: user, slot: slot,
                requestID: "m\(index)", booking: booking, reason: reason, time: at * second + 5_000_000),
        ]
    }

    static let other = "S/A/2026-12-02/10"

    @Test func aMoveFreesItsSlotAndTakesTheOther() throws {
        let history =
            R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
            + Self.move(1, user: 1, "b1", to: Self.other, .ok, at: 1)
            + R.reserve(2, user: 2, R.tomorrow, .ok, booking: "b2", at: 2)
            + R.reserve(3, user: 3, Self.other, .fail, reason: "taken", at: 3)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: Self.other, live: true),
            ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true),
        ]
        #expect(try R.judge(history, listed: listed).findings.map(\.explanation) == [])
    }

    @Test func aMoveIntoATakenSlotIsNotLinearizable() throws {
        let history =
            R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
            + R.reserve(1, user: 2, Self.other, .ok, booking: "b2", at: 1)
            + Self.move(2, user: 1, "b1", to: Self.other, .ok, at: 2)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: Self.other, live: true),
            ListedBooking(id: "b2", user: 2, slot: Self.other, live: true),
        ]
        let findings = try R.judge(history, listed: listed).findings
        #expect(findings.map(\.invariant) == ["linearizable per slot"])
        #expect(findings.first?.explanation.contains("2026-12-02 10:00") == true)
    }

    @Test func aSlotLeftByAMoveRefusedAsTakenIsNotLinearizable() throws {
        let history =
            R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
            + Self.move(1, user: 1, "b1", to: Self.other, .ok, at: 1)
            + R.reserve(2, user: 2, R.tomorrow, .fail, reason: "taken", at: 2)
        let listed = [ListedBooking(id: "b1", user: 1, slot: Self.other, live: true)]
        #expect(try R.judge(history, listed: listed).findings.map(\.invariant) == ["linearizable per slot"])
    }

    @Test func anAnySocketBookingHoldsTheSlotItsAnswerNames() throws {
        let any: [TargetEvent] = [
            TargetEvent(
                index: 0, process: 0, kind: .invoke, operation: "anySocket", user: 1, slot: "S/*/2026-12-02/9",
                requestID: "a0", time: 0),
            TargetEvent(
                index: 0, process: 0, kind: .ok, operation: "anySocket", user: 1, slot: R.tomorrow, requestID: "a0",
                booking: "b1", status: 201, time: 5_000_000),
        ]
        let history = any + R.reserve(1, user: 2, R.tomorrow, .ok, booking: "b2", at: 1)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true),
            ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true),
        ]
        let findings = try R.judge(history, listed: listed).findings
        #expect(findings.map(\.invariant) == ["linearizable per slot"])
        // Safety sees the same double booking, having counted the any-socket booking as made.
        #expect(SafetyCheck.check(history: history, listed: listed, limit: 5).map(\.invariant) == ["no double booking"])
    }

    @Test func aReadRefusedBeforeAnyCancelLosesAnAcknowledgedBooking() {
        func read(_ index: Int, _ kind: TargetEvent.Kind, at: Int64) -> [TargetEvent] {
            [
                TargetEvent(
                    index: index, process: index, kind: .invoke, operation: "read", user: 1, booking: "b1",
                    time: at * Self.second),
                TargetEvent(
                    index: index, process: index, kind: kind, operation: "read", user: 1, booking: "b1",
                    status: kind == .ok ? 200 : 404, reason: kind == .ok ? nil : "unknownBooking",
                    time: at * Self.second + 5_000_000),
            ]
        }
        let listed = [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: false)]
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        // Refused while live: lost for a while.
        let lost = made + read(1, .fail, at: 1) + R.cancel(2, user: 1, "b1", .ok, at: 2)
        #expect(
            SafetyCheck.check(history: lost, listed: listed, limit: 5).map(\.invariant) == [
                "acknowledged bookings kept"
            ])
        // Refused after its cancel was sent: as it should be.
        let cancelled = made + R.cancel(1, user: 1, "b1", .ok, at: 1) + read(2, .fail, at: 2)
        #expect(SafetyCheck.check(history: cancelled, listed: listed, limit: 5).isEmpty)
    }

    /// A check-out answered as made ends its booking as a cancel does: its slot is free for the
    /// next reservation, and the booking must not be live at the end.
    @Test func anAcknowledgedCheckOutFreesTheSlot() throws {
        func checkOut(_ index: Int, _ kind: TargetEvent.Kind, reason: String? = nil, at: Int64) -> [TargetEvent] {
            R.cancel(index, user: 1, "b1", kind, reason: reason, at: at).map {
                var event = $0
                event.operation = "checkOut"
                return event
            }
        }
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let ended = made + checkOut(1, .ok, at: 1) + R.reserve(2, user: 2, R.tomorrow, .ok, booking: "b2", at: 2)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: false),
            ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true),
        ]
        // The slot's partition is fine; only the session is not (no check-in came before).
        #expect(try R.judge(ended, listed: listed).findings.map(\.invariant) == ["check-out after check-in"])
        #expect(SafetyCheck.check(history: ended, listed: listed, limit: 5).isEmpty)
        // Refused as not checked in: the booking stays, and the slot stays taken.
        let refused =
            made + checkOut(1, .fail, reason: "notCheckedIn", at: 1)
            + R.reserve(2, user: 2, R.tomorrow, .ok, booking: "b2", at: 2)
        #expect(!(try R.judge(refused, listed: listed).findings.isEmpty))
        // Answered as made, but still live at the end: the check-out was not applied.
        let stillLive = [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true)]
        #expect(
            SafetyCheck.check(history: made + checkOut(1, .ok, at: 1), listed: stillLive, limit: 5).map(\.invariant)
                == ["acknowledged cancels applied"])
    }

    /// A check-in presents its socket's code; a socket without one sends no `accessCode` at all.
    @Test func aCheckInSendsTheCodeOnlyWhenTheSocketHasOne() throws {
        let adapter = try JSONDecoder().decode(
            Adapter.self,
            from: Data(
                #"""
                {"version": 1, "operations": {
                   "reserve": {"method": "POST", "path": "/r"}, "bookings": {"method": "GET", "path": "/b"},
                   "checkIn": {"method": "POST", "path": "/bookings/{booking}/check-in", "body": {"accessCode": "{accessCode}", "x": 1}}},
                 "answers": {"accepted": [200], "refused": [409], "booking": "/id",
                   "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
                """#.utf8))
        let template = try #require(adapter.operations.checkIn)
        var values = Adapter.Values(user: 3)
        values.booking = "b 7"
        let open = adapter.render(template, values, token: nil)
        #expect(open.path == "/bookings/b%207/check-in")
        #expect(String(decoding: try #require(open.body), as: UTF8.self) == #"{"x":1}"#)
        values.accessCode = "QR-1"
        let coded = adapter.render(template, values, token: nil)
        #expect(String(decoding: try #require(coded.body), as: UTF8.self) == #"{"accessCode":"QR-1","x":1}"#)
    }
}
