import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// Holds, confirms and releases of a booking API: a hold takes its slot and counts toward its
/// user's limit until it is confirmed, released or expires (600 seconds in these rules), and a
/// confirm answered as made is a booking made.
@Suite("Checking the holds of a booking API")
struct TargetHoldCheckTests {
    typealias R = RulesCheckTests
    static let second = RulesCheckTests.second
    static let other = "S/A/2026-12-02/10"

    /// An `operation` of a hold invoked at `at` seconds into the run and answered 5 ms later.
    static func call(
        _ index: Int, _ operation: String, user: UInt64, _ slot: String, _ kind: TargetEvent.Kind, hold: String? = nil,
        booking: String? = nil, reason: String? = nil, at: Int64
    ) -> [TargetEvent] {
        let invoke = TargetEvent(
            index: index, process: index, kind: .invoke, operation: operation, user: user, slot: slot,
            hold: operation == "hold" ? nil : hold, time: at * second)
        var done = invoke
        done.kind = kind
        done.hold = hold
        done.booking = booking
        done.reason = reason
        done.time = at * second + 5_000_000
        return kind == .invoke ? [invoke] : [invoke, done]
    }

    static func judge(_ history: [TargetEvent], listed: [ListedBooking]) throws -> RulesCheck.Result {
        try R.judge(history, listed: listed)
    }

    @Test func holdsConfirmedAndReleasedAsTheRulesSayHaveNoFinding() throws {
        let history =
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
            + R.reserve(1, user: 2, R.tomorrow, .fail, reason: "slotHeld", at: 1)
            + Self.call(2, "confirm", user: 1, R.tomorrow, .ok, hold: "h1", booking: "b1", at: 2)
            + Self.call(3, "hold", user: 2, Self.other, .ok, hold: "h2", at: 3)
            + Self.call(4, "release", user: 2, Self.other, .ok, hold: "h2", at: 4)
            + R.reserve(5, user: 3, Self.other, .ok, booking: "b3", at: 5)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true),
            ListedBooking(id: "b3", user: 3, slot: Self.other, live: true),
        ]
        let result = try Self.judge(history, listed: listed)
        #expect(result.findings.map(\.explanation) == [])
        #expect(result.partitions == 5)
        #expect(SafetyCheck.check(history: history, listed: listed, limit: 1).isEmpty)
    }

    @Test func aReservationOfAHeldSlotIsNotLinearizable() throws {
        let history =
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
            + R.reserve(1, user: 2, R.tomorrow, .ok, booking: "b2", at: 1)
        let listed = [ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true)]
        let findings = try Self.judge(history, listed: listed).findings
        #expect(findings.map(\.invariant) == ["linearizable per slot"])
        // Safety sees no booking twice: the hold was never confirmed.
        #expect(SafetyCheck.check(history: history, listed: listed, limit: 1).isEmpty)
    }

    @Test func aHoldFreesItsSlotOnceItMayHaveExpired() throws {
        func history(reservedAt: Int64) -> [TargetEvent] {
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
                + R.reserve(1, user: 2, R.tomorrow, .ok, booking: "b2", at: reservedAt)
        }
        let listed = [ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true)]
        #expect(try Self.judge(history(reservedAt: 599), listed: listed).findings.map(\.invariant) == [])
        #expect(
            try Self.judge(history(reservedAt: 590), listed: listed).findings.map(\.invariant) == [
                "linearizable per slot"
            ])
    }

    /// Judged in the slot's history alone: whether a hold still has its slot is the slot's state
    /// (another call may have taken it once it expired), not the user's.
    @Test func aConfirmRefusedAsExpiredBeforeItsTimeIsNotLinearizable() throws {
        func history(confirmedAt: Int64) -> [TargetEvent] {
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
                + Self.call(
                    1, "confirm", user: 1, R.tomorrow, .fail, hold: "h1", reason: "holdExpired", at: confirmedAt)
        }
        #expect(try Self.judge(history(confirmedAt: 700), listed: []).findings.isEmpty)
        let early = try Self.judge(history(confirmedAt: 10), listed: []).findings
        #expect(early.map(\.invariant) == ["linearizable per slot"])
    }

    /// The limit is 1: a live hold is the user's one.
    @Test func aHoldCountsTowardItsUsersLimit() throws {
        let history =
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
            + R.reserve(1, user: 1, Self.other, .ok, booking: "b1", at: 1)
        let listed = [ListedBooking(id: "b1", user: 1, slot: Self.other, live: true)]
        #expect(try Self.judge(history, listed: listed).findings.map(\.invariant) == ["linearizable per user"])
        // Released first, the limit is free again.
        let released =
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
            + Self.call(1, "release", user: 1, R.tomorrow, .ok, hold: "h1", at: 1)
            + R.reserve(2, user: 1, Self.other, .ok, booking: "b1", at: 2)
        #expect(try Self.judge(released, listed: listed).findings.isEmpty)
    }

    /// The policy's `maxHoldsPerUser` (1 by default) apart from the booking limit (5 here): a
    /// second live hold of one user has no order; after the first lapsed, it has.
    @Test func aUsersLiveHoldsStayWithinTheirCap() {
        func hold(_ id: UInt64, at time: Int64) -> BookingOperation {
            BookingOperation(
                kind: .reserved, booking: id, user: 1, start: .max, limit: 5, invoke: time, complete: time + 1)
        }
        var lapse = hold(1, at: 2)
        lapse.kind = .lapsed
        let two = [hold(1, at: 0), hold(2, at: 4)]
        let intervals = { (ops: [BookingOperation]) in ops.map { ($0.invoke, $0.complete) } }
        func verdict(_ ops: [BookingOperation], cap: Int?) -> LinearizabilityVerdict {
            LinearizabilityChecker.check(
                UserSpecification(ops, noShowRules: nil, holdLimit: cap), intervals: intervals(ops))
        }
        #expect(verdict(two, cap: 1) == .notLinearizable)
        #expect(verdict(two, cap: 2) == .linearizable)
        #expect(verdict(two, cap: nil) == .linearizable)
        #expect(verdict([hold(1, at: 0), lapse, hold(2, at: 4)], cap: 1) == .linearizable)
    }

    @Test func aConfirmedBookingIsCheckedAsAReservationsIs() throws {
        let history =
            Self.call(0, "hold", user: 1, R.tomorrow, .ok, hold: "h1", at: 0)
            + R.reserve(1, user: 2, R.tomorrow, .ok, booking: "b2", at: 1)
            + Self.call(2, "confirm", user: 1, R.tomorrow, .ok, hold: "h1", booking: "b1", at: 2)
        let twice = [
            ListedBooking(id: "b1", user: 1, slot: R.tomorrow, live: true),
            ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true),
        ]
        #expect(SafetyCheck.check(history: history, listed: twice, limit: 1).map(\.invariant) == ["no double booking"])
        let lost = [ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true)]
        #expect(
            SafetyCheck.check(history: history, listed: lost, limit: 1).map(\.invariant) == [
                "acknowledged bookings kept"
            ])
    }

    /// A hold with no answer may or may not hold its slot: its slot and user are not searched,
    /// so a reservation of the slot after it is no finding.
    @Test func aHoldOfUnknownOutcomeLeavesItsPartitionsUnsearched() throws {
        let history =
            Self.call(0, "hold", user: 1, R.tomorrow, .info, at: 0)
            + R.reserve(1, user: 2, R.tomorrow, .ok, booking: "b2", at: 1)
        let listed = [ListedBooking(id: "b2", user: 2, slot: R.tomorrow, live: true)]
        let result = try Self.judge(history, listed: listed)
        #expect(result.findings.isEmpty)
        #expect(result.skippedPartitions == 2)
    }

    @Test func anAdapterThatConfirmsWithoutHoldingIsRefused() throws {
        let json = """
            {"version": 1, "operations": {"reserve": {"method": "POST", "path": "/r"},
             "bookings": {"method": "GET", "path": "/me"}, "confirm": {"method": "POST", "path": "/h/{hold}"}},
             "answers": {"accepted": [201], "refused": [409], "booking": "/id",
                         "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("confirm-only-\(getpid()).json")
        try Data(json.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: AdapterError.self) { try Adapter.load(path: file.path) }
        do {
            _ = try Adapter.load(path: file.path)
        } catch {
            #expect(error.problem.contains("need operations.hold"))
        }
    }
}
