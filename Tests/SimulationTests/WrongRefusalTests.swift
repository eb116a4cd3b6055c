import SlotScheduler
import Synchronization
import Testing

@testable import SlotSimulation

/// Threads mode flags an any-socket request refused `noMatchingSocketFree` (I13), or a
/// reschedule refused `slotTaken` / `slotHeld` (I14), only when a slot it could take was
/// certainly open and free for its whole call; anything that could have been in the slot at any
/// moment of the call explains the refusal. Hand-made histories, checked as a run's would be.
@Suite struct WrongRefusalTests {
    /// What else happened around an any-socket request for CCS at 10:00, refused
    /// `noMatchingSocketFree` at [20, 30] ns, while user 1 held socket 1 (booked at [0, 10]).
    enum AroundAnySocket: String, CaseIterable, CustomTestStringConvertible {
        // Socket 2 certainly free: wrong.
        case nothing, bookingCancelledBefore, holdExpiredAtItsNow
        // Socket 2 possibly taken or held: explained.
        case concurrentBooking, liveHold, cancelledDuringTheCall, reservationOfUnknownOutcome
        /// Asks for 100 kW, naming socket 2, which is booked: socket 1, free, does not match.
        case freeSocketTooWeak

        var testDescription: String { rawValue }
        var wrong: Bool { [.nothing, .bookingCancelledBefore, .holdExpiredAtItsNow].contains(self) }
    }

    /// An accepted any-socket request for CCS at 10:00, naming socket 1, and the socket it was
    /// given: I13 when that socket does not match (connector, power, station, date and hour).
    enum GivenSocket: String, CaseIterable, CustomTestStringConvertible {
        case anotherMatchingSocket, theNamedSocket
        case otherConnector, tooWeak, otherHour

        var testDescription: String { rawValue }
        var wrong: Bool { ![.anotherMatchingSocket, .theNamedSocket].contains(self) }
    }

    @Test(arguments: GivenSocket.allCases)
    func anySocketAnswerMatchesTheRequest(_ given: GivenSocket) throws {
        var h = try HandMadeHistory()
        let (socket, hour, power): (String, Int, Double) =
            switch given {
            case .anotherMatchingSocket: ("2", 10, 50)
            case .theNamedSocket: ("1", 10, 50)
            case .otherConnector: ("3", 10, 0)
            case .tooWeak: ("1", 10, 100)
            case .otherHour: ("2", 11, 0)
            }
        h.add(.anySocket, user: 1, "1", booking: 100, 0, 10, minimumPowerKW: power)
        h.ops[h.ops.count - 1].cell = h.cell(socket, hour)
        h.stored(100, user: 1, socket, hour: hour)
        let report = h.report()
        #expect(h.violations("I13", in: report) == (given.wrong ? 1 : 0), "\(report.failures.map(\.message))")
    }

    @Test(arguments: AroundAnySocket.allCases)
    func anySocketRefusedWhileASocketWasFree(_ around: AroundAnySocket) throws {
        var h = try HandMadeHistory()
        h.add(.reserve, user: 1, "1", booking: 100, 0, 10)
        h.stored(100, user: 1, "1")
        var requested = ("1", 0.0)
        switch around {
        case .nothing: break
        case .bookingCancelledBefore, .cancelledDuringTheCall:
            h.add(.reserve, user: 3, "2", booking: 101, 1, 5)
            let during = around == .cancelledDuringTheCall
            h.add(.cancel, user: 3, "2", booking: 101, during ? 11 : 6, during ? 25 : 8)
            h.stored(101, user: 3, "2", .cancelled)
        case .holdExpiredAtItsNow:
            h.add(.hold, user: 3, "2", 12, 18, now: h.now - h.p.rules.policy.holdSeconds)
        case .concurrentBooking:
            h.add(.reserve, user: 3, "2", booking: 101, 15, 35)
            h.stored(101, user: 3, "2")
        case .liveHold: h.add(.hold, user: 3, "2", 12, 18)
        case .reservationOfUnknownOutcome: h.add(.reserve, user: 3, "2", result: .indeterminate, 15, 25)
        case .freeSocketTooWeak:
            h.add(.reserve, user: 3, "2", booking: 101, 15, 18)
            h.stored(101, user: 3, "2")
            requested = ("2", 100)
        }
        h.add(
            .anySocket, user: 2, requested.0, result: .refused(.noMatchingSocketFree), 20, 30,
            minimumPowerKW: requested.1)
        let report = h.report()
        #expect(h.violations("I13", in: report) == (around.wrong ? 1 : 0), "\(report.failures.map(\.message))")
        if around.wrong {
            #expect(report.failures.contains { $0.message.contains("refused noMatchingSocketFree while") })
        }
    }

    /// What else happened around user 1's move of booking 100 (10:00 on socket 1, booked at
    /// [0, 10]) to 11:00, refused `slotTaken` (or `slotHeld` with a hold) at [20, 30] ns.
    enum AroundMove: String, CaseIterable, CustomTestStringConvertible {
        // 11:00 certainly free: wrong.
        case nothing, bookingCancelledBefore, bookingMovedAwayBefore
        // 11:00 possibly taken or held: explained.
        case concurrentBooking, liveHold, moveInOfUnknownOutcome

        var testDescription: String { rawValue }
        var wrong: Bool { [.nothing, .bookingCancelledBefore, .bookingMovedAwayBefore].contains(self) }
    }

    @Test(arguments: AroundMove.allCases)
    func moveRefusedWhileItsSlotWasFree(_ around: AroundMove) throws {
        var h = try HandMadeHistory()
        h.add(.reserve, user: 1, "1", hour: 10, booking: 100, 0, 10)
        h.stored(100, user: 1, "1", hour: 10)
        var reason = Rejection.Reason.slotTaken
        switch around {
        case .nothing: break
        case .bookingCancelledBefore:
            h.add(.reserve, user: 2, "1", hour: 11, booking: 101, 1, 5)
            h.add(.cancel, user: 2, "1", hour: 11, booking: 101, 6, 8)
            h.stored(101, user: 2, "1", hour: 11, .cancelled)
        case .bookingMovedAwayBefore:
            h.add(.reserve, user: 2, "1", hour: 11, booking: 101, 1, 5)
            h.add(.reschedule, user: 2, "1", hour: 12, booking: 101, 6, 8)
            h.stored(101, user: 2, "1", hour: 12)
        case .concurrentBooking:
            h.add(.reserve, user: 2, "1", hour: 11, booking: 101, 15, 25)
            h.stored(101, user: 2, "1", hour: 11)
        case .liveHold:
            h.add(.hold, user: 2, "1", hour: 11, 12, 18)
            reason = .slotHeld
        case .moveInOfUnknownOutcome:
            h.add(.reserve, user: 2, "1", hour: 12, booking: 101, 1, 5)
            h.add(.reschedule, user: 2, "1", hour: 11, booking: 101, result: .indeterminate, 15, 25)
            h.stored(101, user: 2, "1", hour: 11)
        }
        h.add(.reschedule, user: 1, "1", hour: 11, booking: 100, result: .refused(reason), 20, 30)
        let report = h.report()
        #expect(h.violations("I14", in: report) == (around.wrong ? 1 : 0), "\(report.failures.map(\.message))")
        #expect(h.violations("I11", in: report) == 0, "\(report.failures.map(\.message))")
    }
}

/// A deliberately broken store: refuses every third any-socket request `noMatchingSocketFree`
/// and every third reschedule `slotTaken` without looking.
struct WrongRefusingService: ForwardingService {
    let inner: Scheduler
    let calls = Counter()

    func third() -> Bool { calls.value.add(1, ordering: .relaxed).newValue % 3 == 0 }

    func reserve(_ request: AnySocketRequest, at now: Instant) async throws -> Booking {
        if third() { throw Rejection(.noMatchingSocketFree) }
        return try inner.reserve(request, at: now)
    }
    func reschedule(_ request: RescheduleRequest, at now: Instant) async throws -> Reservation {
        if third() { throw Rejection(.slotTaken) }
        return try inner.reschedule(request, at: now)
    }
}

@Suite struct WrongRefusalRunTests {
    /// On a real threads run of the lifecycle scenario, a store that refuses without looking is
    /// caught by both checks (and a sound one by neither: `LifecycleThreadsTests`).
    @Test func refusalsWithoutLookingAreCaught() async throws {
        let report = try await Fixtures.runLifecycleWorkload { WrongRefusingService(inner: Scheduler(rules: $0)) }
        for id in ["I13", "I14"] {
            #expect((report.invariants.first { $0.id == id }?.violations ?? 0) > 0, "\(id): \(report.summary)")
        }
    }
}
