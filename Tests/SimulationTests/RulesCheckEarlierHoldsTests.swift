import SlotScheduler
import SlotSimulation
import Testing

/// `--check rules` on a target used before the run, which may still hold slots for users from
/// then: no API lists holds, so a hold made before the run counts toward its user's limit and
/// keeps its slot, unseen, until it expires (at most `holdSeconds`, 600 here, after the run's
/// start). Found in the example service's CI, whose two-instance run follows others on the same
/// database. Built on `RulesCheckTests`' station (a limit of 1), adapter and clock.
@Suite struct RulesCheckEarlierHoldsTests {
    typealias R = RulesCheckTests
    static let ten = "S/A/2026-12-02/10"

    /// User 1, who holds nothing the run saw, is refused at the limit at `at` seconds: a hold
    /// from before the run explains it on a target used before (a booking was read before the
    /// run), while the hold may live; not on a fresh target, nor once it has surely expired.
    @Test(arguments: [(true, 5, false), (true, 700, true), (false, 5, true)])
    func aRefusalAtTheLimitMayCountAHoldFromBefore(_ usedBefore: Bool, _ at: Int64, _ found: Bool) throws {
        let before = usedBefore ? [ListedBooking(id: "old", user: 3, slot: R.tomorrow, live: false)] : []
        let history = R.reserve(0, user: 1, Self.ten, .fail, reason: "userLimitReached", at: at)
        let result = try R.judge(history, listed: before, before: before)
        #expect(result.findings.map(\.invariant) == (found ? ["linearizable per user"] : []))
    }

    /// 10:00 is refused as taken at 1 s with nothing the run saw there, then booked at 5 s (and
    /// cancelled at 6 s): someone's hold from before the run that expired between explains it. A
    /// second refusal as taken at 700 s, when that hold has surely expired, has no explanation.
    @Test(arguments: [false, true])
    func aSlotMayBeHeldFromBeforeTheRunUntilTheHoldExpires(_ refusedLate: Bool) throws {
        let history =
            R.reserve(0, user: 1, Self.ten, .fail, reason: "taken", at: 1)
            + R.reserve(1, user: 2, Self.ten, .ok, booking: "b2", at: 5)
            + R.cancel(2, user: 2, "b2", .ok, at: 6)
            + (refusedLate ? R.reserve(3, user: 3, Self.ten, .fail, reason: "taken", at: 700) : [])
        let listed = [ListedBooking(id: "b2", user: 2, slot: Self.ten, live: false)]
        let result = try R.judge(history, listed: listed)
        #expect(result.findings.map(\.invariant) == (refusedLate ? ["linearizable per slot"] : []))
    }
}
