import SlotScheduler
import SlotSchedulerOCPP
import Testing

@Suite("The charger bridge")
struct BridgeTests {
    typealias F = ChargerFixture

    /// A booking is sent within the lead, not before; once, then answered.
    @Test func aBookingIsReservedAtTheChargerWithinTheLead() async throws {
        let f = try F()
        let booking = try f.book("B", 10, user: 17)
        #expect(await f.bridge.connect("S1", at: F.at(9, 30)).isEmpty)
        #expect(await f.bridge.tick(at: F.at(9, 44)).isEmpty)
        let frames = await f.bridge.tick(at: F.at(9, 45))
        #expect(frames.count == 1)
        let sent = try #require(call(frames.first?.frame))
        #expect(frames.first?.station == "S1")
        #expect(sent.action == "ReserveNow")
        #expect(field(sent.payload, "id") == .integer(Int64(booking.id.rawValue)))
        #expect(field(sent.payload, "evseId") == .integer(2))
        #expect(field(sent.payload, "expiryDateTime") == .string("2026-03-02T11:00:00Z"))
        #expect(field(sent.payload, "idToken") == .object(["idToken": .string("17"), "type": .string("Central")]))
        #expect(await f.bridge.reservation(of: booking.id)?.status == .sent)
        #expect(await f.bridge.tick(at: F.at(9, 50)).isEmpty)
        _ = await f.bridge.receive(#"[3,"\#(sent.id)",{"status":"Accepted"}]"#, from: "S1", at: F.at(9, 46))
        #expect(await f.bridge.reservation(of: booking.id)?.status == .accepted)
    }

    /// A refusal is recorded on the booking.
    @Test(arguments: [
        ("Faulted", ChargerReservation.Status.faulted), ("Occupied", .occupied),
        ("Unavailable", .unavailable), ("Rejected", .rejected),
    ])
    func aRefusedReservationIsRecorded(answer: String, status: ChargerReservation.Status) async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 3)
        let sent = try #require(call(await f.bridge.connect("S1", at: F.at(9, 50)).first))
        _ = await f.bridge.receive(#"[3,"\#(sent.id)",{"status":"\#(answer)"}]"#, from: "S1", at: F.at(9, 51))
        #expect(await f.bridge.reservation(of: booking.id)?.status == status)
        _ = await f.bridge.receive(#"[4,"unknown-id","GenericError","",{}]"#, from: "S1", at: F.at(9, 51))
        #expect(await f.bridge.reservation(of: booking.id)?.status == status)
    }

    @Test func aCancelledBookingSendsCancelReservation() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 3)
        let reserve = try #require(call(await f.bridge.connect("S1", at: F.at(9, 50)).first))
        _ = try f.scheduler.cancel(booking.id, by: 3, at: F.at(9, 52))
        let frames = await f.bridge.tick(at: F.at(9, 53))
        let cancel = try #require(call(frames.first?.frame))
        #expect(frames.count == 1)
        #expect(cancel.action == "CancelReservation")
        #expect(field(cancel.payload, "reservationId") == field(reserve.payload, "id"))
        #expect(await f.bridge.reservation(of: booking.id)?.status == .cancelled)
        #expect(await f.bridge.tick(at: F.at(9, 54)).isEmpty)
    }

    /// A reservation that ran to its expiry is the station's to end: nothing is sent.
    @Test func anExpiredReservationIsNotCancelled() async throws {
        let f = try F()
        _ = try f.book("A", 10, user: 3)
        #expect(await f.bridge.connect("S1", at: F.at(9, 50)).count == 1)
        #expect(await f.bridge.tick(at: F.at(11, 0)).isEmpty)
    }

    @Test func aMovedBookingIsReservedAgainOrCancelled() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 3)
        _ = await f.bridge.connect("S1", at: F.at(9, 50))
        _ = try f.scheduler.reschedule(
            RescheduleRequest(booking: booking.id, user: 3, to: F.slot("B", 10)), at: F.at(9, 51))
        let moved = try #require(call(await f.bridge.tick(at: F.at(9, 52)).first?.frame))
        #expect(moved.action == "ReserveNow")
        #expect(field(moved.payload, "evseId") == .integer(2))
        _ = try f.scheduler.reschedule(
            RescheduleRequest(booking: booking.id, user: 3, to: F.slot("B", 14)), at: F.at(9, 53))
        let cancelled = try #require(call(await f.bridge.tick(at: F.at(9, 54)).first?.frame))
        #expect(cancelled.action == "CancelReservation")
    }

    @Test func aReconnectionSendsEveryReservationAgain() async throws {
        let f = try F()
        _ = try f.book("A", 10, user: 3)
        _ = try f.book("B", 10, user: 4)
        #expect(await f.bridge.connect("S1", at: F.at(9, 50)).count == 2)
        await f.bridge.disconnect("S1")
        #expect(await f.bridge.tick(at: F.at(9, 51)).isEmpty)
        let again = await f.bridge.connect("S1", at: F.at(9, 52))
        #expect(again.compactMap { call($0)?.action } == ["ReserveNow", "ReserveNow"])
        let boot = await f.bridge.receive(
            stationCall(
                "b1", "BootNotification", #"{"chargingStation":{"model":"M","vendorName":"V"},"reason":"PowerUp"}"#),
            from: "S1", at: F.at(9, 53))
        #expect(
            boot.first
                == .result(
                    id: "b1",
                    payload: .object([
                        "currentTime": .string("2026-03-02T09:53:00Z"), "interval": .integer(300),
                        "status": .string("Accepted"),
                    ])))
        #expect(boot.dropFirst().compactMap { call($0)?.action } == ["ReserveNow", "ReserveNow"])
    }

    /// Faulted closes the socket from the current hour for the horizon, displacing its
    /// bookings (and withdrawing their reservations); new bookings there are refused; Available
    /// reopens the hours not started.
    @Test func aFaultDisplacesAndClosesAndAvailableReopens() async throws {
        let f = try F()
        let now = F.at(9, 50)
        let booking = try f.book("A", 10, user: 3)
        let other = try f.book("B", 10, user: 4)
        #expect(await f.bridge.connect("S1", at: now).count == 2)
        let frames = await f.bridge.receive(
            stationCall(
                "s1", "StatusNotification",
                #"{"timestamp":"2026-03-02T09:50:00Z","connectorStatus":"Faulted","evseId":1,"connectorId":1}"#),
            from: "S1", at: now)
        #expect(frames.first == .result(id: "s1", payload: .object([:])))
        #expect(frames.dropFirst().compactMap { call($0)?.action } == ["CancelReservation"])
        #expect(f.scheduler.booking(booking.id)?.status == .displaced)
        #expect(f.scheduler.booking(other.id)?.status == .active)
        #expect(await f.bridge.reservation(of: booking.id)?.displacedBecause == "socketFaulted")
        #expect(throws: Rejection.self) { try f.book("A", 10, user: 5) }
        #expect(throws: Rejection.self) {
            try f.scheduler.reserve(ReservationRequest(slot: F.slot("A", 9), user: 5), at: now)
        }
        _ = try f.book("A", 11, user: 5)  // beyond the horizon: open
        _ = await f.bridge.receive(
            stationCall(
                "s2", "StatusNotification",
                #"{"timestamp":"2026-03-02T09:55:00Z","connectorStatus":"Available","evseId":1,"connectorId":1}"#),
            from: "S1", at: F.at(9, 55))
        _ = try f.scheduler.reserve(ReservationRequest(slot: F.slot("A", 10), user: 6), at: F.at(9, 56))
        #expect(throws: Rejection.self) {
            try f.scheduler.reserve(ReservationRequest(slot: F.slot("A", 9), user: 7), at: F.at(9, 56))
        }
    }

    /// While a fault lasts, the closed window moves with the clock.
    @Test func aLastingFaultIsExtended() async throws {
        let f = try F()
        _ = await f.bridge.connect("S1", at: F.at(9, 50))
        let late = try f.book("A", 12, user: 3)
        _ = await f.bridge.receive(
            stationCall(
                "s1", "StatusNotification",
                #"{"timestamp":"2026-03-02T09:50:00Z","connectorStatus":"Unavailable","evseId":1,"connectorId":1}"#),
            from: "S1", at: F.at(9, 50))
        #expect(f.scheduler.booking(late.id)?.status == .active)
        _ = await f.bridge.tick(at: F.at(11, 5))
        #expect(f.scheduler.booking(late.id)?.status == .displaced)
    }

    @Test func theUsersTokenChecksTheBookingIn() async throws {
        let f = try F()
        let booking = try f.book("B", 10, user: 17)
        _ = await f.bridge.connect("S1", at: F.at(9, 50))
        func started(_ id: String, token: String, evse: Int, at time: Instant) async -> [OCPPFrame] {
            await f.bridge.receive(
                stationCall(
                    id, "TransactionEvent",
                    """
                    {"eventType":"Started","timestamp":"\(OCPPDateTime(time))","triggerReason":"Authorized","seqNo":0,\
                    "transactionInfo":{"transactionId":"t\(id)"},"idToken":{"idToken":"\(token)","type":"Central"},\
                    "evse":{"id":\(evse),"connectorId":1}}
                    """), from: "S1", at: time)
        }
        func status(_ frames: [OCPPFrame]) -> JSONValue? {
            guard case .result(_, let payload) = frames.first else { return nil }
            return field(field(payload, "idTokenInfo"), "status")
        }
        #expect(status(await started("1", token: "17", evse: 1, at: F.at(9, 50))) == .string("NotAtThisTime"))
        #expect(status(await started("2", token: "18", evse: 2, at: F.at(9, 50))) == .string("NotAtThisTime"))
        #expect(status(await started("3", token: "bob", evse: 2, at: F.at(9, 50))) == .string("Unknown"))
        #expect(f.scheduler.booking(booking.id)?.checkedInAt == nil)
        #expect(status(await started("4", token: "17", evse: 2, at: F.at(9, 50))) == .string("Accepted"))
        #expect(f.scheduler.booking(booking.id)?.checkedInAt == F.at(9, 50))
        #expect(await f.bridge.reservation(of: booking.id)?.status == .used)
        #expect(await f.bridge.tick(at: F.at(9, 51)).isEmpty)
    }

    @Test func authorizeChecksInAtAnySocketOfTheStation() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 8)
        let frames = await f.bridge.receive(
            stationCall("a", "Authorize", #"{"idToken":{"idToken":"8","type":"Central"}}"#), from: "S1",
            at: F.at(10, 5))
        #expect(
            frames == [.result(id: "a", payload: .object(["idTokenInfo": .object(["status": .string("Accepted")])]))])
        #expect(f.scheduler.booking(booking.id)?.checkedInAt == F.at(10, 5))
    }

    /// Only the token the bridge issues names a user: user ids are not secret, so a code typed at
    /// the charger, a card's number, no authorization or another spelling of the id checks in
    /// nobody (and skips no access code).
    @Test func onlyTheBridgesOwnTokenNamesAUser() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 8)
        for (n, token) in [
            #"{"idToken":"8","type":"KeyCode"}"#, #"{"idToken":"8","type":"ISO14443"}"#,
            #"{"idToken":"8","type":"NoAuthorization"}"#, #"{"idToken":"8","type":"Local"}"#,
            #"{"idToken":"08","type":"Central"}"#, #"{"idToken":"+8","type":"Central"}"#,
            #"{"idToken":"8","type":"central"}"#,
        ].enumerated() {
            let frames = await f.bridge.receive(
                stationCall("a\(n)", "Authorize", #"{"idToken":"# + token + "}"), from: "S1", at: F.at(10, 5))
            #expect(
                frames == [
                    .result(id: "a\(n)", payload: .object(["idTokenInfo": .object(["status": .string("Unknown")])]))
                ], "\(token)")
        }
        #expect(f.scheduler.booking(booking.id)?.checkedInAt == nil)
        #expect(IdToken(idToken: "8").user == UserID(8))
    }

    @Test func aReservationStatusUpdateIsRecorded() async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 3)
        _ = await f.bridge.connect("S1", at: F.at(9, 50))
        let id = ChargerReservation.reservationID(of: booking.id)
        let frames = await f.bridge.receive(
            stationCall(
                "r", "ReservationStatusUpdate", #"{"reservationId":\#(id),"reservationUpdateStatus":"Removed"}"#),
            from: "S1", at: F.at(9, 55))
        #expect(frames == [.result(id: "r", payload: .object([:]))])
        #expect(await f.bridge.reservation(of: booking.id)?.status == .removed)
    }

    /// Bad frames and bad payloads are answered with a CALLERROR; nothing changes.
    @Test(arguments: [
        ("garbage", "-1", "RpcFrameworkError"),
        (#"[2,"x","FirmwareStatusNotification",{}]"#, "x", "NotImplemented"),
        (
            #"[2,"x","StatusNotification",{"timestamp":"2026-03-02T09:50:00Z","evseId":1,"connectorId":1}]"#, "x",
            "OccurrenceConstraintViolation"
        ),
        (
            #"[2,"x","StatusNotification",{"timestamp":"2026-03-02T09:50:00Z","connectorStatus":"Broken","evseId":1,"connectorId":1}]"#,
            "x", "PropertyConstraintViolation"
        ),
        (
            #"[2,"x","StatusNotification",{"timestamp":"yesterday","connectorStatus":"Faulted","evseId":1,"connectorId":1}]"#,
            "x", "PropertyConstraintViolation"
        ),
        (#"[2,"x","Authorize",{"idToken":{"idToken":17,"type":"Central"}}]"#, "x", "TypeConstraintViolation"),
        // OCPP 2.0.1 bounds the strings: an idToken of 37 characters, a transactionId of 37.
        (
            #"[2,"x","Authorize",{"idToken":{"idToken":""# + String(repeating: "3", count: 37)
                + #"","type":"Central"}}]"#,
            "x", "PropertyConstraintViolation"
        ),
        (
            #"[2,"x","TransactionEvent",{"eventType":"Started","timestamp":"2026-03-02T09:50:00Z","#
                + #""triggerReason":"Authorized","seqNo":0,"transactionInfo":{"transactionId":""#
                + String(repeating: "t", count: 37) + #""},"idToken":{"idToken":"3","type":"Central"}}]"#,
            "x", "PropertyConstraintViolation"
        ),
    ])
    func badMessagesGetACallError(text: String, id: String, code: String) async throws {
        let f = try F()
        let booking = try f.book("A", 10, user: 3)
        let frames = await f.bridge.receive(text, from: "S1", at: F.at(9, 50))
        #expect(frames.count == 1)
        guard case .error(let answerID, let answerCode, _) = frames.first else {
            Issue.record("not a CALLERROR: \(frames)")
            return
        }
        #expect(answerID == id)
        #expect(answerCode.rawValue == code)
        #expect(f.scheduler.booking(booking.id)?.status == .active)
    }

    /// The same inputs give the same frames, call ids included.
    @Test func aRunIsDeterministic() async throws {
        func run() async throws -> [String] {
            let f = try F()
            _ = try f.book("A", 10, user: 3)
            _ = try f.book("B", 10, user: 4)
            var texts = await f.bridge.connect("S1", at: F.at(9, 50)).map(\.text)
            texts += await f.bridge.receive(
                stationCall(
                    "s", "StatusNotification",
                    #"{"timestamp":"2026-03-02T09:50:00Z","connectorStatus":"Faulted","evseId":2,"connectorId":1}"#),
                from: "S1", at: F.at(9, 51)
            ).map(\.text)
            texts += await f.bridge.tick(at: F.at(10, 30)).map(\.frame.text)
            return texts
        }
        let first = try await run()
        #expect(first.count == 4)
        #expect(try await run() == first)
    }
}

@Suite("The charger bridge, with a store that suspends")
struct BridgeInterleavingTests {
    typealias F = ChargerFixture

    /// A tick extending a fault while the station reports Available (the tick held in its store
    /// call) must not put the fault back: later hours stay open.
    @Test func anAvailableDuringATickIsNotUndone() async throws {
        let catalog = try Catalog([F.station])
        let scheduler = Scheduler(rules: try Rules(catalog: catalog, policy: Policy(maxUpcomingBookings: 10)))
        let service = YieldingService(inner: scheduler)
        let bridge = ChargerBridge(service: service, evses: try EVSEMap(catalog: catalog))
        _ = await bridge.connect("S1", at: F.at(9, 50))
        _ = await bridge.receive(
            stationCall(
                "f", "StatusNotification",
                #"{"timestamp":"2026-03-02T09:50:00Z","connectorStatus":"Faulted","evseId":1,"connectorId":1}"#),
            from: "S1", at: F.at(9, 50))
        service.gate.arm()
        let tick = Task { await bridge.tick(at: F.at(10, 10)) }
        var polls = 0
        while !service.gate.entered && polls < 1_000_000 {
            await Task.yield()
            polls += 1
        }
        #expect(service.gate.entered)
        let available = Task {
            await bridge.receive(
                stationCall(
                    "a", "StatusNotification",
                    #"{"timestamp":"2026-03-02T10:10:00Z","connectorStatus":"Available","evseId":1,"connectorId":1}"#),
                from: "S1", at: F.at(10, 10))
        }
        // Time for the station's message to be handled, if the bridge let it in now.
        for _ in 0..<2_000 { await Task.yield() }
        service.gate.release()
        _ = await (tick.value, available.value)
        let later = try scheduler.reserve(ReservationRequest(slot: F.slot("A", 13), user: 9), at: F.at(10, 20))
        _ = await bridge.tick(at: F.at(12, 30))
        #expect(scheduler.booking(later.id)?.status == .active)
    }
}
