import SlotScheduler
import Synchronization
import Testing

@testable import SlotSimulation

/// Confirms, any-socket requests and reschedules whose reply was lost are resolved against the
/// store's final state: each took effect or not, whichever the final state shows, and is then
/// checked as such. Hand-made histories (see `HandMadeHistory`); user 1 acts unless told.
@Suite struct IndeterminateLifecycleTests {
    func failures(_ report: Report) -> [String] { report.failures.map(\.message) }

    func failing(_ report: Report) -> [String] {
        report.invariants.filter { $0.status == "fail" }.map(\.id)
    }

    /// User 1 holds 10:00 on socket 1, then confirms it without learning the answer; user 2's
    /// reservation of it is refused `slotTaken` after the confirm began.
    @Test(arguments: [true, false])
    func confirmHappenedIfItsBookingIsThere(_ booked: Bool) throws {
        var h = try HandMadeHistory()
        h.add(.hold, user: 1, "1", 0, 5)
        h.add(.confirm, user: 1, result: .indeterminate, 10, 20)
        if booked {
            h.add(.reserve, user: 2, result: .refused(.slotTaken), 22, 25)
            h.stored(100, user: 1)
        }
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatHappened == (booked ? 1 : 0))
        #expect(report.indeterminate?.confirmsThatDidNot == (booked ? 0 : 1))
        #expect(report.passed, "\(failures(report))")
    }

    /// The same user retried the confirm and was told the booking: the lost one may have made it,
    /// so user 2's `slotTaken` in between is no violation (read as made by the retry, the slot
    /// would have been free then: I11).
    @Test func confirmRetriedAfterALostReplyMayHaveMadeTheBooking() throws {
        var h = try HandMadeHistory()
        h.add(.hold, user: 1, "1", 0, 5)
        h.add(.confirm, user: 1, result: .indeterminate, 10, 20)
        h.add(.reserve, user: 2, result: .refused(.slotTaken), 22, 25)
        h.add(.confirm, user: 1, booking: 100, 30, 40)
        h.stored(100, user: 1)
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatHappened == 1)
        #expect(report.passed, "\(failures(report))")
    }

    /// A confirm whose hold had expired at its `now`, or was confirmed before it began, made
    /// nothing (it was refused, or returned the first confirm's booking again): the booking of its
    /// slot that no call acknowledged is nobody's (I5), and reading it as the confirm's would
    /// have hidden that.
    @Test(arguments: [true, false])
    func confirmWithNoLiveHoldMadeNothing(_ expired: Bool) throws {
        var h = try HandMadeHistory()
        if expired {
            h.add(.hold, user: 1, "1", 0, 5, now: h.now - h.p.rules.policy.holdSeconds)
        } else {
            h.add(.hold, user: 1, "1", 0, 5)
            h.add(.confirm, user: 1, "1", booking: 100, 6, 8)
            h.stored(100, user: 1)
        }
        h.add(.confirm, user: 1, result: .indeterminate, 10, 20)
        h.stored(101, user: 1)
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatDidNot == 1)
        #expect(failing(report).contains("I5"), "\(failures(report))")
    }

    /// A later confirm after a new hold of the slot is no retry of a lost one: the lost one's own
    /// booking (displaced since) is the one it made, and the later one made its own.
    @Test func confirmAfterANewHoldIsNoRetry() throws {
        var h = try HandMadeHistory()
        h.add(.hold, user: 1, "1", 0, 5)
        h.add(.confirm, user: 1, result: .indeterminate, 10, 20)
        h.stored(100, user: 1, "1", .displaced)
        h.add(.change, user: 0, "1", 25, 28)
        h.ops[h.ops.count - 1].displaced = [100]
        h.add(.hold, user: 1, "1", 30, 35)
        h.add(.confirm, user: 1, booking: 101, 40, 45)
        h.stored(101, user: 1)
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatHappened == 1)
        #expect(report.passed, "\(failures(report))")
    }

    /// Two confirms of one hold, both answers lost (the second returned the first's booking
    /// again), then a change displaces that booking and a lost any-socket request of user 1's
    /// books the slot anew: one confirm made booking 100, the other nothing, and booking 101 is
    /// the request's (read as the second confirm's, the hold would have made two bookings and the
    /// request none).
    @Test func aHoldMakesOneBookingHoweverManyLostConfirms() throws {
        var h = try HandMadeHistory()
        h.add(.hold, user: 1, "1", 0, 5)
        h.add(.confirm, user: 1, "1", result: .indeterminate, 10, 20)
        h.add(.confirm, user: 1, "1", result: .indeterminate, 22, 30)
        h.add(.change, user: 0, "1", 32, 35)
        h.ops[h.ops.count - 1].displaced = [100]
        h.stored(100, user: 1, "1", .displaced)
        h.add(.anySocket, user: 1, "1", result: .indeterminate, 40, 50)
        h.stored(101, user: 1, "1")
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatHappened == 1)
        #expect(report.indeterminate?.confirmsThatDidNot == 1)
        #expect(report.indeterminate?.anySocketThatHappened == 1)
        #expect(report.passed, "\(failures(report))")
    }

    /// A booking of user 1 in another slot is no confirm's: I5.
    @Test func bookingOfAnotherSlotIsNoConfirms() throws {
        var h = try HandMadeHistory()
        h.add(.hold, user: 1, "1", 0, 5)
        h.add(.confirm, user: 1, result: .indeterminate, 10, 20)
        h.stored(100, user: 1, hour: 11)
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatDidNot == 1)
        #expect(failing(report) == ["I5"], "\(failures(report))")
    }

    /// User 1 asks for any CCS socket at 10:00 and loses the answer; the store holds a booking of
    /// theirs on `socket`: socket 2 (a match) means it happened, socket 3 (Type 2) that it did not
    /// and the store holds a booking nobody made (I5).
    @Test(arguments: ["2", "3"])
    func anySocketHappenedIfAMatchingSocketHoldsItsBooking(_ socket: String) throws {
        var h = try HandMadeHistory()
        h.add(.reserve, user: 2, "1", booking: 101, 0, 5)
        h.stored(101, user: 2, "1")
        h.add(.anySocket, user: 1, "1", result: .indeterminate, 10, 20)
        h.stored(102, user: 1, socket)
        let report = h.report()
        let matches = socket == "2"
        #expect(report.indeterminate?.anySocketThatHappened == (matches ? 1 : 0))
        #expect(report.indeterminate?.anySocketThatDidNot == (matches ? 0 : 1))
        #expect(failing(report) == (matches ? [] : ["I5"]), "\(failures(report))")
    }

    /// A lost any-socket request (socket 1 or 2) and a lost reservation of socket 1, both user
    /// 1's, and user 1 has a booking in each: the reservation's slot is looked for first, so the
    /// request gets socket 2's and neither booking is left to nobody (I5).
    @Test func singleSlotCallsClaimTheirBookingFirst() throws {
        var h = try HandMadeHistory()
        h.add(.anySocket, user: 1, "1", result: .indeterminate, 0, 20)
        h.add(.reserve, user: 1, "1", result: .indeterminate, 5, 15)
        h.stored(102, user: 1, "1")
        h.stored(103, user: 1, "2")
        let report = h.report()
        #expect(report.indeterminate?.anySocketThatHappened == 1)
        #expect(report.indeterminate?.reservationsThatHappened == 1)
        #expect(report.passed, "\(failures(report))")
    }

    /// A lost any-socket request (socket 1 or 2), then a lost confirm of socket 2 after a
    /// change displaced user 1's older booking there: the confirm made the newer one (read as
    /// making the older, it would have made it after it was displaced: I11).
    @Test func aBookingDisplacedBeforeACallBeganIsNotItsOwn() throws {
        var h = try HandMadeHistory()
        h.add(.anySocket, user: 1, "1", result: .indeterminate, 0, 10)
        h.add(.change, user: 0, "2", 15, 18)
        h.ops[h.ops.count - 1].displaced = [100]
        h.stored(100, user: 1, "2", .displaced)
        h.add(.hold, user: 1, "2", 20, 22)
        h.add(.confirm, user: 1, "2", result: .indeterminate, 25, 30)
        h.stored(101, user: 1, "2")
        let report = h.report()
        #expect(report.indeterminate?.confirmsThatHappened == 1)
        #expect(report.indeterminate?.anySocketThatHappened == 1)
        #expect(report.passed, "\(failures(report))")
    }

    /// Where the store holds booking 100 (made at 10:00) after user 1's move of it to 11:00 came
    /// back with no answer, and what the check makes of it.
    enum MoveEnd: String, CaseIterable, CustomTestStringConvertible {
        /// At 11:00: it happened, and user 2 booked 10:00 after it (no I1).
        case moved
        /// At 10:00: it did not, and user 2 booked 11:00 after it.
        case stayed
        /// At 12:00: neither slot the move could leave it in: I14.
        case elsewhere
        /// At 12:00, moved there by a later acknowledged move: undecided, no violation.
        case movedAgain

        var testDescription: String { rawValue }
    }

    @Test(arguments: MoveEnd.allCases)
    func rescheduleHappenedIfItsBookingIsInItsNewSlot(_ end: MoveEnd) throws {
        var h = try HandMadeHistory()
        h.add(.reserve, user: 1, hour: 10, booking: 100, 0, 5)
        h.add(.reschedule, user: 1, hour: 11, booking: 100, result: .indeterminate, 10, 20)
        switch end {
        case .moved:
            h.stored(100, user: 1, hour: 11)
            h.add(.reserve, user: 2, hour: 10, booking: 101, 30, 40)
            h.stored(101, user: 2, hour: 10)
        case .stayed:
            h.stored(100, user: 1, hour: 10)
            h.add(.reserve, user: 2, hour: 11, booking: 101, 30, 40)
            h.stored(101, user: 2, hour: 11)
        case .elsewhere: h.stored(100, user: 1, hour: 12)
        case .movedAgain:
            h.add(.reschedule, user: 1, hour: 12, booking: 100, 30, 40)
            h.stored(100, user: 1, hour: 12)
        }
        let report = h.report()
        let resolved = try #require(report.indeterminate)
        #expect(resolved.reschedulesThatHappened == (end == .moved ? 1 : 0))
        #expect(resolved.reschedulesThatDidNot == (end == .stayed || end == .elsewhere ? 1 : 0))
        #expect(resolved.other == (end == .movedAgain ? 1 : 0))
        #expect(failing(report) == (end == .elsewhere ? ["I14"] : []), "\(failures(report))")
    }
}

/// The store's side of lost lifecycle replies: every `every`-th accepted confirm or any-socket
/// request is applied and its reply lost; every `every`-th reschedule is lost before the store
/// sees it.
struct LostLifecycleReplyService: ForwardingService {
    let inner: Scheduler
    let every: Int
    let calls = Counter()

    func lose() -> Bool { calls.value.add(1, ordering: .relaxed).newValue % every == 0 }

    func confirm(_ slot: Slot, by user: UserID, at now: Instant) async throws -> Booking {
        let booking = try inner.confirm(slot, by: user, at: now)
        if lose() { throw LostReplyService.LostReply() }
        return booking
    }
    func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        let booking = try inner.reserve(request, at: now)
        if lose() { throw LostReplyService.LostReply() }
        return booking
    }
    func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        if lose() { throw LostReplyService.LostReply() }
        return try inner.reschedule(request, at: now)
    }
}

@Suite struct IndeterminateLifecycleRunTests {
    /// A threads run of the lifecycle scenario with lost replies passes: lost confirms and
    /// any-socket requests resolve as happened (the store applied each; a lost repeated confirm,
    /// or one whose booking another lost call of its user could have made, may be read either
    /// way), no lost reschedule does (the store never saw them). Read as not happened, a lost
    /// confirm's or any-socket request's booking would be one nobody made (I5); read as happened
    /// when they were never tried, a hold or slot ended too early (I16, I13, I11).
    @Test func lostLifecycleRepliesAreResolved() async throws {
        let report = try await Fixtures.runLifecycleWorkload {
            LostLifecycleReplyService(inner: Scheduler(rules: $0), every: 5)
        }
        #expect(report.passed, "\(report.failures.map(\.message))")
        let resolved = try #require(report.indeterminate)
        #expect(resolved.confirmsThatHappened > 0, "\(resolved)")
        #expect(resolved.anySocketThatHappened > 0, "\(resolved)")
        #expect(resolved.reschedulesThatHappened == 0 && resolved.reschedulesThatDidNot > 0, "\(resolved)")
    }
}
