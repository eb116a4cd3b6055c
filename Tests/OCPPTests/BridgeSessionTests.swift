import SlotScheduler
import SlotSchedulerOCPP
import Testing

/// Charging sessions: `TransactionEvent` `Ended` checks the booking out; a coded socket's
/// check-in presents its code.
extension BridgeTests {
    /// The transaction that checked the booking in ends: the booking is fulfilled, with both
    /// times, and its hour is free again (booked by another user, reserved at the charger).
    @Test func aTransactionEndedChecksTheBookingOut() async throws {
        let f = try F()
        let booking = try f.book("B", 10, user: 17)
        _ = await f.bridge.connect("S1", at: F.at(9, 50))
        let started = await f.bridge.receive(
            transactionEvent("1", "Started", transaction: "t1", token: "17", evse: 2, at: F.at(9, 50)), from: "S1",
            at: F.at(9, 50))
        #expect(tokenStatus(started) == .string("Accepted"))
        let ended = await f.bridge.receive(
            transactionEvent("2", "Ended", transaction: "t1", token: "17", evse: 2, at: F.at(9, 55)), from: "S1",
            at: F.at(9, 55))
        #expect(tokenStatus(ended) == .string("Accepted"))
        let done = try #require(f.scheduler.booking(booking.id))
        #expect(done.status == .fulfilled)
        #expect(done.checkedInAt == F.at(9, 50))
        #expect(done.checkedOutAt == F.at(9, 55))
        #expect(await f.bridge.reservation(of: booking.id)?.status == .used)
        let next = try f.scheduler.reserve(ReservationRequest(slot: F.slot("B", 10), user: 18), at: F.at(9, 56))
        // The same Ended again finds nothing to end; the new booking is reserved at the charger.
        let again = await f.bridge.receive(
            transactionEvent("3", "Ended", transaction: "t1", token: "17", evse: 2, at: F.at(9, 57)), from: "S1",
            at: F.at(9, 57))
        #expect(tokenStatus(again) == .string("NotAtThisTime"))
        #expect(f.scheduler.booking(booking.id)?.checkedOutAt == F.at(9, 55))
        let reserve = try #require(call(again.dropFirst().first))
        #expect(reserve.action == "ReserveNow")
        #expect(field(reserve.payload, "id") == .integer(Int64(next.id.rawValue)))
    }

    /// Stations often end a transaction without the token: the bridge knows which booking the
    /// transaction checked in, and answers without `idTokenInfo`.
    @Test func anEndedWithoutATokenChecksOutWhatItsTransactionCheckedIn() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 8)
        let other = try f.book("B", 10, user: 8)
        _ = await f.bridge.receive(
            transactionEvent("1", "Started", transaction: "t9", token: "8", evse: 1, at: F.at(10, 5)), from: "S1",
            at: F.at(10, 5))
        _ = try f.scheduler.checkIn(other.id, by: 8, accessCode: nil, at: F.at(10, 6))
        let ended = await f.bridge.receive(
            transactionEvent("2", "Ended", transaction: "t9", at: F.at(10, 40)), from: "S1", at: F.at(10, 40))
        #expect(ended == [.result(id: "2", payload: .object([:]))])
        #expect(f.scheduler.booking(booking.id)?.status == .fulfilled)
        #expect(f.scheduler.booking(booking.id)?.checkedOutAt == F.at(10, 40))
        #expect(f.scheduler.booking(other.id)?.status == .active)
    }

    /// A session the bridge did not see start (checked in over HTTP, or before a restart): the
    /// token's checked-in booking at the EVSE named is checked out, even after its hour.
    @Test func anEndedFindsTheTokensCheckedInBookingAtItsEVSE() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 8)
        _ = try f.scheduler.checkIn(booking.id, by: 8, accessCode: nil, at: F.at(10, 0))
        let elsewhere = await f.bridge.receive(
            transactionEvent("1", "Ended", transaction: "x", token: "8", evse: 2, at: F.at(10, 30)), from: "S1",
            at: F.at(10, 30))
        #expect(tokenStatus(elsewhere) == .string("NotAtThisTime"))
        #expect(f.scheduler.booking(booking.id)?.status == .active)
        let here = await f.bridge.receive(
            transactionEvent("2", "Ended", transaction: "x", token: "8", evse: 1, at: F.at(11, 30)), from: "S1",
            at: F.at(11, 30))
        #expect(tokenStatus(here) == .string("Accepted"))
        #expect(f.scheduler.booking(booking.id)?.status == .fulfilled)
        #expect(f.scheduler.booking(booking.id)?.checkedOutAt == F.at(11, 30))
    }

    /// No checked-in booking to end (never checked in, another user's token, no token, a
    /// transaction the bridge refused): each Ended is answered, and nothing changes.
    @Test func anEndedWithoutACheckedInBookingChangesNothing() async throws {
        let f = try F()
        let booking = try f.book("B", 10, user: 17)
        _ = await f.bridge.connect("S1", at: F.at(9, 50))
        func ended(_ id: String, transaction: String, token: String?, evse: Int?) async -> [OCPPFrame] {
            await f.bridge.receive(
                transactionEvent(id, "Ended", transaction: transaction, token: token, evse: evse, at: F.at(9, 55)),
                from: "S1", at: F.at(9, 55))
        }
        let refused = await f.bridge.receive(
            transactionEvent("0", "Started", transaction: "t0", token: "17", evse: 1, at: F.at(9, 52)), from: "S1",
            at: F.at(9, 52))
        #expect(tokenStatus(refused) == .string("NotAtThisTime"))
        #expect(tokenStatus(await ended("1", transaction: "t0", token: "17", evse: 1)) == .string("NotAtThisTime"))
        #expect(tokenStatus(await ended("2", transaction: "t1", token: "17", evse: 2)) == .string("NotAtThisTime"))
        #expect(tokenStatus(await ended("3", transaction: "t2", token: "18", evse: nil)) == .string("NotAtThisTime"))
        #expect(tokenStatus(await ended("4", transaction: "t3", token: "bob", evse: 2)) == .string("Unknown"))
        #expect(await ended("5", transaction: "t4", token: nil, evse: nil) == [.result(id: "5", payload: .object([:]))])
        let unchanged = try #require(f.scheduler.booking(booking.id))
        #expect(unchanged.status == .active)
        #expect(unchanged.checkedInAt == nil)
        #expect(unchanged.checkedOutAt == nil)
        #expect(await f.bridge.reservation(of: booking.id)?.status == .sent)
        // It can still be checked in, and then ended.
        let started = await f.bridge.receive(
            transactionEvent("6", "Started", transaction: "t5", token: "17", evse: 2, at: F.at(9, 56)), from: "S1",
            at: F.at(9, 56))
        #expect(tokenStatus(started) == .string("Accepted"))
        #expect(f.scheduler.booking(booking.id)?.checkedInAt == F.at(9, 56))
    }

    /// The charger is the socket: a token at a coded socket checks in with the socket's code,
    /// which the owner's own check-in without it lacks.
    @Test func aStartedOnACodedSocketChecksIn() async throws {
        let station = Station(
            id: "S1", name: "Depot", city: "London", timeZone: "UTC",
            sockets: [
                Socket(id: "A", connector: .ccs, powerKW: 50, accessCode: "K-4711"),
                Socket(id: "B", connector: .ccs, powerKW: 50),
            ])
        let f = try F(station: station)
        let booking = try f.book("A", 10, user: 17)
        let refusal = #expect(throws: Rejection.self) {
            try f.scheduler.checkIn(booking.id, by: 17, accessCode: nil, at: F.at(9, 50))
        }
        #expect(refusal?.reason == .wrongAccessCode)
        let started = await f.bridge.receive(
            transactionEvent("1", "Started", transaction: "t1", token: "17", evse: 1, at: F.at(9, 51)), from: "S1",
            at: F.at(9, 51))
        #expect(tokenStatus(started) == .string("Accepted"))
        #expect(f.scheduler.booking(booking.id)?.checkedInAt == F.at(9, 51))
        // Authorize, at any socket of the station, presents the code of the booking's socket.
        let later = try f.book("A", 11, user: 18)
        let authorized = await f.bridge.receive(
            stationCall("a", "Authorize", #"{"idToken":{"idToken":"18","type":"Central"}}"#), from: "S1",
            at: F.at(10, 50))
        #expect(tokenStatus(authorized) == .string("Accepted"))
        #expect(f.scheduler.booking(later.id)?.checkedInAt == F.at(10, 50))
    }
}
