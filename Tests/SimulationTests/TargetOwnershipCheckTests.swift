import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// Whose a booking is, and where: an API keeps each booking for the user who made it, at the
/// slot it was made at (or moved to), and answers another user as it answers for a missing one.
@Suite("Checking whose a booking is, and where")
struct TargetOwnershipCheckTests {
    typealias R = RulesCheckTests
    typealias L = TargetLifecycleCheckTests

    static func findings(_ history: [TargetEvent], _ listed: [ListedBooking]) -> [SafetyCheck.Finding] {
        SafetyCheck.check(history: history, listed: listed, limit: 5)
    }

    static func by(_ user: UInt64, _ events: [TargetEvent], as operation: String? = nil, status: Int? = nil)
        -> [TargetEvent]
    {
        events.map {
            var event = $0
            event.user = user
            if let operation { event.operation = operation }
            if event.kind != .invoke, let status { event.status = status }
            return event
        }
    }

    @Test func aBookingListedAtAnotherSlotWasNotKeptAsMade() {
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let elsewhere = [ListedBooking(id: "b1", user: 1, slot: L.other, live: true)]
        let findings = Self.findings(made, elsewhere)
        #expect(findings.map(\.invariant) == ["acknowledged bookings kept"])
        #expect(findings.first?.explanation.contains("is listed at \(L.other)") == true)
        // Moved there, it is where it should be; and an hour written `09` is hour 9.
        #expect(Self.findings(made + L.move(1, user: 1, "b1", to: L.other, .ok, at: 1), elsewhere).isEmpty)
        #expect(Self.findings(made, [ListedBooking(id: "b1", user: 1, slot: "S/A/2026-12-02/09", live: true)]).isEmpty)
    }

    /// Knowing a socket's code is not owning its booking: another user's check-in is refused as
    /// for a missing booking, or it starts someone else's session.
    @Test func anotherUsersCheckInMustBeRefusedAsForAMissingBooking() {
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let live = [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true)]
        let checkIn = { (kind: TargetEvent.Kind, reason: String?, status: Int?) in
            Self.by(2, R.cancel(1, user: 2, "b1", kind, reason: reason, at: 1), as: "checkIn", status: status)
        }
        #expect(Self.findings(made + checkIn(.fail, "unknownBooking", 404), live).isEmpty)
        let started = Self.findings(made + checkIn(.ok, nil, 200), live)
        #expect(started.map(\.invariant) == ["nobody acts as another user"])
        #expect(started.first?.explanation.contains("a checkIn of booking b1 of user 1 by user 2") == true)
        #expect(
            Self.findings(made + checkIn(.fail, "notOwner", 409), live).map(\.invariant) == [
                "nobody acts as another user"
            ])
    }

    @Test func aBookingListedAmongAnotherUsersWasNotKeptAsMade() {
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let findings = Self.findings(made, [ListedBooking(id: "b1", user: 2, slot: R.tomorrow, live: true)])
        #expect(findings.map(\.explanation).contains { $0.contains("listed among user 2's bookings") })
    }

    @Test func anotherUsersCancelMustBeRefusedAsForAMissingBooking() {
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let live = [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true)]
        // Refused as missing: right.
        let missing = Self.by(2, R.cancel(1, user: 2, "b1", .fail, reason: "unknownBooking", at: 1), status: 404)
        #expect(Self.findings(made + missing, live).isEmpty)
        // Answered as made: the owner's booking is gone, and someone else did it.
        let done = Self.by(2, R.cancel(1, user: 2, "b1", .ok, at: 1))
        let findings = Self.findings(made + done, [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: false)])
        #expect(findings.map(\.invariant) == ["acknowledged bookings kept", "nobody acts as another user"])
        // Refused as forbidden: it tells the booking apart from a missing one.
        let forbidden = Self.by(2, R.cancel(1, user: 2, "b1", .fail, reason: "forbidden", at: 1), status: 403)
        #expect(Self.findings(made + forbidden, live).map(\.invariant) == ["nobody acts as another user"])
    }

    /// Another user's read refused is no lost booking; answered, it shows someone else's booking.
    @Test func anotherUsersReadMustBeRefused() {
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let live = [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true)]
        let refused = Self.by(2, R.cancel(1, user: 2, "b1", .fail, reason: "unknownBooking", at: 1), as: "read")
        #expect(Self.findings(made + refused, live).isEmpty)
        let shown = Self.by(2, R.cancel(1, user: 2, "b1", .ok, at: 1), as: "read")
        #expect(Self.findings(made + shown, live).map(\.invariant) == ["nobody acts as another user"])
    }

    /// Another user's list, read back after the run, must not show the owner's bookings.
    @Test func anotherUsersListMustNotShowTheBookings() throws {
        let made = R.reserve(0, user: 1, R.tomorrow, .ok, booking: "b1", at: 0)
        let live = [ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true)]
        let shown = Self.by(2, R.cancel(1, user: 2, "b1", .ok, at: 1), as: "list")
        let findings = Self.findings(made + shown, live)
        #expect(findings.map(\.invariant) == ["nobody acts as another user"])
        #expect(findings.first?.explanation.contains("user 1's list of bookings, read by user 2") == true)
        // The owner's own list shows it, as it should.
        #expect(Self.findings(made + Self.by(1, R.cancel(1, user: 1, "b1", .ok, at: 1), as: "list"), live).isEmpty)
    }

    /// A request sent by one user about another: the placeholders are the other's, the
    /// credentials the caller's.
    @Test func aCallerSendsItsOwnCredentials() throws {
        let json = """
            {"version": 1, "auth": {"type": "header", "header": "X-User", "value": "{user}"},
             "operations": {"reserve": {"method": "POST", "path": "/r"}, "bookings": {"method": "GET", "path": "/people/{user}"}},
             "answers": {"accepted": [200], "refused": [404], "booking": "/id",
                         "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
            """
        let adapter = try JSONDecoder().decode(Adapter.self, from: Data(json.utf8))
        var values = Adapter.Values(user: 1)
        values.caller = 2
        let request = adapter.render(adapter.operations.bookings, values, token: nil)
        #expect(request.path == "/people/1")
        #expect(request.headers.first { $0.0 == "X-User" }?.1 == "2")
    }
}
