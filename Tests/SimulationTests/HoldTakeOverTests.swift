import SlotScheduler
import Testing

@testable import SlotSimulation

/// A hold whose slot another call took once it had expired no longer has its slot, whatever
/// `now` a later call of its user brings: in threads mode each worker has its own clock, so a
/// call may come in with a `now` before one the store has already seen. Hand-made histories
/// (see `HandMadeHistory`).
@Suite struct HoldTakeOverTests {
    /// User 1 holds 10:00; user 2 books it at a `now` past the hold's expiry; then user 1's
    /// confirm comes in with an earlier `now`, before that expiry. Refused as expired, it is
    /// right: the hold lost its slot (judged by the user's history alone, it was a confirm
    /// refused before its hold's expiry, I16). Accepted, the slot had two holders (I11).
    @Test(arguments: [true, false])
    func aConfirmAfterItsHoldWasTakenOver(_ refused: Bool) throws {
        var h = try HandMadeHistory()
        let holdSeconds = h.p.rules.policy.holdSeconds
        h.add(.hold, user: 1, "1", 0, 5)
        h.add(.reserve, user: 2, "1", booking: 100, 10, 15, now: h.now + holdSeconds + 60)
        h.stored(100, user: 2)
        if refused {
            h.add(.confirm, user: 1, "1", result: .refused(.holdExpired), 20, 25, now: h.now + 60)
        } else {
            h.add(.confirm, user: 1, "1", booking: 101, 20, 25, now: h.now + 60)
            h.stored(101, user: 1)
        }
        let report = h.report()
        let failing = report.invariants.filter { $0.status == "fail" }.map(\.id)
        #expect(report.passed == refused, "\(report.failures.map(\.message))")
        #expect(failing.contains("I11") == !refused, "\(failing)")
    }
}
