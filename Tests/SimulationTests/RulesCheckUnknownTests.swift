import SlotScheduler
import SlotSimulation
import Testing

/// `--check rules` with calls whose answers were lost, as an instance killed mid-run leaves them
/// (the example service's CI kills one of two): a move is resolved by where its booking is read
/// back, and a booking first named by a repeat of its key may have been made by an earlier
/// request with that key. Built on `RulesCheckTests`' station, adapter and clock.
@Suite struct RulesCheckUnknownTests {
    typealias R = RulesCheckTests
    static let nine = R.tomorrow
    static let ten = "S/A/2026-12-02/10"

    /// A call of `operation` invoked at `at` seconds, answered `kind` 5 ms later (`info`: lost).
    static func call(
        _ index: Int, _ operation: String, user: UInt64, _ slot: String?, _ kind: TargetEvent.Kind,
        key: String? = nil, booking: String? = nil, answered: String? = nil, reason: String? = nil, at: Double
    ) -> [TargetEvent] {
        let time = Int64(at * 1e9)
        return [
            TargetEvent(
                index: index, process: index, kind: .invoke, operation: operation, user: user, slot: slot,
                requestID: key, booking: booking, time: time),
            TargetEvent(
                index: index, process: index, kind: kind, operation: operation, user: user, slot: slot,
                requestID: key, booking: answered ?? booking, reason: reason, time: time + 5_000_000),
        ]
    }

    /// A reservation of 9:00 by user 1 whose answer was lost, on a target that already held user
    /// 2's booking there and a booking of user 1's there that an earlier run cancelled (both read
    /// before the run and again after it): it made nothing, and the cancelled booking is not what
    /// it made (read so, 9:00 would have had two bookings).
    @Test func aBookingFromBeforeTheRunIsNoLostCallsOwn() throws {
        let before = [
            ListedBooking(id: "old", user: 1, slot: Self.nine, live: false),
            ListedBooking(id: "b2", user: 2, slot: Self.nine, live: true),
        ]
        let history = Self.call(0, "reserve", user: 1, Self.nine, .info, key: "k0", at: 1)
        let result = try R.judge(history, listed: before, before: before)
        #expect(result.findings.map(\.explanation) == [])
    }

    /// User 1's booking at 9:00 is moved to 10:00 and the answer is lost; user 2 then books 10:00.
    /// Read back at 9:00, the move did not happen and user 2's booking is right; read back at
    /// 10:00, it did, and user 2's booking shares the slot with it.
    @Test(arguments: [false, true])
    func aMoveOfUnknownOutcomeIsWhereItsBookingIsReadBack(_ moved: Bool) throws {
        let history =
            Self.call(0, "reserve", user: 1, Self.nine, .ok, key: "a", answered: "b1", at: 0)
            + Self.call(1, "reschedule", user: 1, Self.ten, .info, booking: "b1", at: 1)
            + Self.call(2, "reserve", user: 2, Self.ten, .ok, key: "b", answered: "b2", at: 2)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: moved ? Self.ten : Self.nine, live: true),
            ListedBooking(id: "b2", user: 2, slot: Self.ten, live: true),
        ]
        let result = try R.judge(history, listed: listed)
        #expect(
            result.findings.map(\.invariant) == (moved ? ["linearizable per slot"] : []),
            "\(result.findings.map(\.explanation))")
    }

    /// The same, but the booking is read back nowhere the move could leave it (another move of it
    /// came later, with its answer lost too): its slots and its owner are not searched.
    @Test func aMoveThatCannotBeResolvedLeavesItsPartitionsUnsearched() throws {
        let history =
            Self.call(0, "reserve", user: 1, Self.nine, .ok, key: "a", answered: "b1", at: 0)
            + Self.call(1, "reschedule", user: 1, Self.ten, .info, booking: "b1", at: 1)
            + Self.call(2, "reschedule", user: 1, Self.nine, .info, booking: "b1", at: 2)
            + Self.call(3, "reserve", user: 2, Self.ten, .ok, key: "b", answered: "b2", at: 3)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: Self.nine, live: true),
            ListedBooking(id: "b2", user: 2, slot: Self.ten, live: true),
        ]
        let result = try R.judge(history, listed: listed)
        #expect(result.findings.isEmpty, "\(result.findings.map(\.explanation))")
        #expect(result.skippedPartitions >= 2)
    }

    /// User 1's reservation with key `k` is lost; user 2 is refused 9:00 as taken a second later;
    /// user 1's repeat of `k` is answered with the booking the lost request made (200). The
    /// booking was made from the first request on, so the refusal is right.
    @Test func aBookingFirstNamedByARepeatWasMadeFromTheFirstRequest() throws {
        let history =
            Self.call(0, "reserve", user: 1, Self.nine, .info, key: "k", at: 0)
            + Self.call(1, "reserve", user: 2, Self.nine, .fail, key: "m", reason: "taken", at: 1)
            + Self.call(2, "reserve", user: 1, Self.nine, .ok, key: "k", answered: "b1", at: 2)
        let listed = [ListedBooking(id: "b1", user: 1, slot: Self.nine, live: true)]
        let result = try R.judge(history, listed: listed)
        #expect(result.findings.isEmpty, "\(result.findings.map(\.explanation))")
        #expect(result.partitions >= 2)
    }
}
