import Foundation
import SlotScheduler
import SlotSchedulerOCPP
import Testing

@Suite("OCPP-J frames and dates")
struct FrameTests {
    @Test func readsTheThreeMessageTypes() throws {
        #expect(
            try OCPPFrame(parsing: #"[2,"19223201","Heartbeat",{}]"#)
                == .call(id: "19223201", action: "Heartbeat", payload: .object([:])))
        #expect(
            try OCPPFrame(parsing: #"[3,"7",{"status":"Accepted"}]"#)
                == .result(id: "7", payload: .object(["status": .string("Accepted")])))
        #expect(
            try OCPPFrame(parsing: #"[4,"7","NotImplemented","no",{}]"#)
                == .error(id: "7", code: .notImplemented, description: "no"))
    }

    @Test func aFrameWrittenIsReadBack() throws {
        let frame = OCPPFrame.call(
            id: "csms-1",
            ReserveNowRequest(
                id: 42, expiryDateTime: OCPPDateTime(ChargerFixture.at(11)), idToken: IdToken(idToken: "17"), evseId: 2)
        )
        #expect(try OCPPFrame(parsing: frame.text) == frame)
        #expect(
            frame.text
                == #"[2,"csms-1","ReserveNow",{"evseId":2,"expiryDateTime":"2026-03-02T11:00:00Z","id":42,"idToken":{"idToken":"17","type":"Central"}}]"#
        )
    }

    /// Each malformed frame gets the error OCPP-J names, with the id when one can be read.
    @Test(
        arguments: [
            ("not json", nil, OCPPErrorCode.rpcFrameworkError),
            (#"{"a":1}"#, nil, .rpcFrameworkError),
            ("[]", nil, .rpcFrameworkError),
            (#"[2,5,"Heartbeat",{}]"#, nil, .rpcFrameworkError),
            (#"[2,"","Heartbeat",{}]"#, nil, .rpcFrameworkError),
            ("[2,\"" + String(repeating: "x", count: 37) + "\",\"Heartbeat\",{}]", nil, .rpcFrameworkError),
            (#"[2,"9","Heartbeat"]"#, "9", .rpcFrameworkError),
            (#"[2,"9",7,{}]"#, "9", .rpcFrameworkError),
            (#"[2,"9","Heartbeat",[]]"#, "9", .formatViolation),
            (#"[5,"9","Heartbeat",{}]"#, "9", .messageTypeNotSupported),
            // A member named twice, which readers resolve differently: a FormatViolation on the id.
            (#"[2,"9","Authorize",{"idToken":{"idToken":"A","type":"Central","idToken":"B"}}]"#, "9", .formatViolation),
            (#"[3,"9",{"status":"Accepted","status":"Rejected"}]"#, "9", .formatViolation),
            (#"[2,"9","Heartbeat",{"a":1,"a":1}]"#, "9", .formatViolation),
        ] as [(String, String?, OCPPErrorCode)])
    func malformedFramesAreRefusedWithTheirCode(text: String, id: String?, code: OCPPErrorCode) {
        #expect {
            try OCPPFrame(parsing: text)
        } throws: { error in
            guard let error = error as? OCPPFrameError else { return false }
            return error.id == id && error.code == code && error.answer.id == (id ?? "-1")
        }
    }

    /// The CALLERROR for a member named twice says which; the same frame without the repeat is
    /// read.
    @Test func aMemberNamedTwiceIsNamed() throws {
        let text = #"[2,"4","Authorize",{"idToken":{"idToken":"A","type":"Central","idToken":"B"}}]"#
        #expect {
            try OCPPFrame(parsing: text)
        } throws: { error in
            (error as? OCPPFrameError)?.message == #"the member "idToken" is named twice"#
        }
        let once = #"[2,"4","Authorize",{"idToken":{"idToken":"A","type":"Central"}}]"#
        #expect(throws: Never.self) { try OCPPFrame(parsing: once) }
    }

    /// An error quoting what the charge point sent stays within OCPP-J's 255 characters of
    /// `errorDescription` (a 60,000-character action name was echoed whole, in the CALLERROR and
    /// in the service's log line of it).
    @Test func anErrorDescriptionIsCutAtOCPPsLimit() async throws {
        let f = try ChargerFixture()
        let action = String(repeating: "A", count: 60_000)
        _ = await f.bridge.connect("S1", at: ChargerFixture.at(9))
        let frames = await f.bridge.receive(#"[2,"9","\#(action)",{}]"#, from: "S1", at: ChargerFixture.at(9))
        guard case .error(let id, let code, let description)? = frames.first else {
            Issue.record("expected a CALLERROR, got \(frames)")
            return
        }
        #expect(id == "9" && code == .notImplemented)
        #expect(description.count == OCPPFrameError.maxMessageCharacters && description.hasSuffix("…"))
        #expect(description.hasPrefix("AAAA"))
        let short = OCPPFrameError(id: "9", code: .genericError, "Heartbeat is not handled")
        #expect(short.message == "Heartbeat is not handled")
    }

    /// A number an integer field cannot hold is a TypeConstraintViolation that says so (it was
    /// "The given data was not valid JSON.", Foundation's words, of a frame that is valid JSON).
    @Test(arguments: ["1.5", "1e30", "99999999999999999999", "-1e300"])
    func aNumberItsFieldCannotHoldIsATypeViolation(evse: String) async throws {
        let f = try ChargerFixture()
        _ = await f.bridge.connect("S1", at: ChargerFixture.at(9))
        let text =
            #"[2,"7","StatusNotification",{"timestamp":"2026-03-02T09:00:00Z","connectorStatus":"Faulted","evseId":"#
            + evse + #","connectorId":1}]"#
        let frames = await f.bridge.receive(text, from: "S1", at: ChargerFixture.at(9))
        guard case .error(let id, let code, let description)? = frames.first else {
            Issue.record("expected a CALLERROR, got \(frames)")
            return
        }
        #expect(id == "7" && code == .typeConstraintViolation)
        #expect(description.hasPrefix("StatusNotification: a number does not fit"), "\(description)")
    }

    /// A date-time that is RFC 3339 but in a year this package does not book is refused saying
    /// so; one that is no date-time is refused as such.
    @Test(arguments: [
        ("9999-12-31T23:59:59Z", "outside the years 1900...2399"), ("0001-01-01T00:00:00Z", "outside the years"),
        ("2026-13-01T00:00:00Z", "not an RFC 3339 date-time"), ("yesterday", "not an RFC 3339 date-time"),
    ])
    func aDateTimeOutsideTheYearsSaysSo(timestamp: String, said: String) async throws {
        let f = try ChargerFixture()
        _ = await f.bridge.connect("S1", at: ChargerFixture.at(9))
        let text =
            #"[2,"8","StatusNotification",{"timestamp":""# + timestamp
            + #"","connectorStatus":"Faulted","evseId":1,"connectorId":1}]"#
        let frames = await f.bridge.receive(text, from: "S1", at: ChargerFixture.at(9))
        guard case .error(let id, _, let description)? = frames.first else {
            Issue.record("expected a CALLERROR, got \(frames)")
            return
        }
        #expect(id == "8" && description.contains(said), "\(description)")
    }

    @Test func datesAreReadWithAnyOffsetAndWrittenInUTC() throws {
        #expect(ChargerFixture.date == (try LocalDate(year: 2026, month: 3, day: 2)))
        let eleven = ChargerFixture.at(11)
        #expect(OCPPDateTime(parsing: "2026-03-02T11:00:00Z")?.instant == eleven)
        #expect(OCPPDateTime(parsing: "2026-03-02T11:00:00.123456+00:00")?.instant == eleven)
        #expect(OCPPDateTime(parsing: "2026-03-02T12:30:00+01:30")?.instant == eleven)
        #expect(OCPPDateTime(parsing: "2026-03-02T09:00:00-02:00")?.instant == eleven)
        #expect(OCPPDateTime(eleven).description == "2026-03-02T11:00:00Z")
        #expect(OCPPDateTime(Instant(secondsSinceEpoch: -1)).description == "1969-12-31T23:59:59Z")
        for bad in [
            "", "2026-03-02", "2026-03-02T11:00:00", "2026-02-30T11:00:00Z", "2026-03-02T24:00:00Z",
            "2026-03-02T11:00:00.Z", "2026-03-02T11:00:00Zjunk", "2026-03-02T11:00:00+1:00", "２026-03-02T11:00:00Z",
        ] {
            #expect(OCPPDateTime(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func theEVSEMapNumbersSocketsInCatalogOrderUnlessTheCatalogSaysOtherwise() throws {
        let catalog = try Catalog([ChargerFixture.station])
        let plain = try EVSEMap(catalog: catalog)
        #expect(plain.address(of: "B", at: "S1") == EVSEAddress(evseId: 2, connectorId: 1))
        #expect(plain.socket(evseId: 1, connectorId: nil, at: "S1") == "A")
        #expect(plain.socket(evseId: 3, connectorId: 1, at: "S1") == nil)
        let json = #"{"stations":[{"id":"S1","sockets":[{"id":"A","ocpp":{"evseId":1,"connectorId":2}},{"id":"B"}]}]}"#
        let overrides = try EVSEMap.overrides(inCatalogJSON: Data(json.utf8))
        let shared = try EVSEMap(
            catalog: catalog,
            overrides: ["S1": ["A": EVSEAddress(evseId: 1, connectorId: 2), "B": EVSEAddress(evseId: 1)]])
        #expect(overrides == ["S1": ["A": EVSEAddress(evseId: 1, connectorId: 2)]])
        #expect(shared.socket(evseId: 1, connectorId: 2, at: "S1") == "A")
        #expect(shared.socket(evseId: 1, connectorId: nil, at: "S1") == nil)
        #expect(throws: InvalidValue.self) {
            try EVSEMap(catalog: catalog, overrides: ["S1": ["A": EVSEAddress(evseId: 2)]])
        }
        #expect(throws: InvalidValue.self) {
            try EVSEMap(catalog: catalog, overrides: ["S1": ["A": EVSEAddress(evseId: 0)]])
        }
    }

    @Test func reservationIDsAreStableAndFitIn31Bits() {
        #expect(ChargerReservation.reservationID(of: BookingID(77)) == 77)
        let large = BookingID(0x0123_4567_89AB_CDEF)
        #expect(ChargerReservation.reservationID(of: large) == ChargerReservation.reservationID(of: large))
        #expect((0...Int64(Int32.max)).contains(ChargerReservation.reservationID(of: large)))
        #expect(ChargerReservation.reservationID(of: BookingID(.max)) <= Int64(Int32.max))
    }
}
