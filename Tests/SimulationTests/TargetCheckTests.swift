import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// The pieces of `schedule-sim run --target` that need no network: the safety checks over a
/// history, the adapter's templates, and the HS256 tokens it mints.
@Suite("Checking a booking API")
struct TargetCheckTests {
    static func reserve(
        _ index: Int, user: UInt64, slot: String, key: String, booking: String?, _ kind: TargetEvent.Kind,
        at time: Int64,
        took: Int64 = 5
    ) -> [TargetEvent] {
        [
            TargetEvent(
                index: index, process: index, kind: .invoke, operation: "reserve", user: user, slot: slot,
                requestID: key,
                time: time),
            TargetEvent(
                index: index, process: index, kind: kind, operation: "reserve", user: user, slot: slot, requestID: key,
                booking: booking, status: kind == .ok ? 201 : 409, time: time + took),
        ]
    }

    static func cancel(_ index: Int, user: UInt64, booking: String, _ kind: TargetEvent.Kind, at time: Int64)
        -> [TargetEvent]
    {
        [
            TargetEvent(
                index: index, process: index, kind: .invoke, operation: "cancel", user: user, booking: booking,
                time: time),
            TargetEvent(
                index: index, process: index, kind: kind, operation: "cancel", user: user, booking: booking,
                time: time + 5),
        ]
    }

    @Test func aCorrectHistoryHasNoFinding() {
        let history =
            Self.reserve(0, user: 1, slot: "S/A/2026-12-01/9", key: "k0", booking: "b1", .ok, at: 0)
            + Self.reserve(1, user: 2, slot: "S/A/2026-12-01/9", key: "k1", booking: nil, .fail, at: 1)
            + Self.reserve(2, user: 1, slot: "S/A/2026-12-01/9", key: "k0", booking: "b1", .ok, at: 20)
            + Self.cancel(3, user: 1, booking: "b1", .ok, at: 40)
            + Self.reserve(4, user: 2, slot: "S/A/2026-12-01/9", key: "k4", booking: "b2", .ok, at: 60)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: "S/A/2026-12-01/9", live: false),
            ListedBooking(id: "b2", user: 2, slot: "S/A/2026-12-01/9", live: true),
        ]
        #expect(SafetyCheck.check(history: history, listed: listed, limit: 1).isEmpty)
    }

    @Test func eachBrokenInvariantIsNamedWithItsHistory() {
        let slot = "S/A/2026-12-01/9"
        let history =
            Self.reserve(0, user: 1, slot: slot, key: "k0", booking: "b1", .ok, at: 0)
            + Self.reserve(1, user: 2, slot: slot, key: "k1", booking: "b2", .ok, at: 1)
            + Self.reserve(2, user: 3, slot: "S/B/2026-12-01/9", key: "k2", booking: "b3", .ok, at: 2)
            + Self.cancel(3, user: 2, booking: "b2", .ok, at: 30)
            + Self.reserve(4, user: 1, slot: "S/B/2026-12-01/10", key: "k0", booking: "b4", .ok, at: 40)
        let listed = [
            ListedBooking(id: "b1", user: 1, slot: slot, live: true),
            ListedBooking(id: "b2", user: 2, slot: slot, live: true),
            ListedBooking(id: "b4", user: 1, slot: "S/B/2026-12-01/10", live: true),
        ]
        let findings = SafetyCheck.check(history: history, listed: listed, limit: 1)
        #expect(
            findings.map(\.invariant) == [
                "no double booking", "per-user limit", "per-user limit", "acknowledged bookings kept",
                "acknowledged cancels applied", "idempotent retries",
            ])
        let double = findings[0]
        #expect(double.explanation.contains("b1, b2"))
        #expect(double.events.map(\.index) == [0, 1, 0, 1])
        #expect(findings[3].explanation.contains("b3"))
        #expect(findings[5].explanation.contains("key 1/k0"))
    }

    @Test func twoReservationsInFlightAtOnceCanBreakTheLimitUnseenAtTheEnd() {
        let history =
            Self.reserve(0, user: 7, slot: "S/A/d/9", key: "a", booking: "b1", .ok, at: 0, took: 10)
            + Self.reserve(1, user: 7, slot: "S/A/d/10", key: "b", booking: "b2", .ok, at: 1, took: 10)
            + Self.cancel(2, user: 7, booking: "b2", .ok, at: 50)
        let listed = [
            ListedBooking(id: "b1", user: 7, slot: "S/A/d/9", live: true),
            ListedBooking(id: "b2", user: 7, slot: "S/A/d/10", live: false),
        ]
        let findings = SafetyCheck.check(history: history, listed: listed, limit: 1)
        #expect(findings.map(\.invariant) == ["per-user limit"])
        #expect(findings.first?.explanation.contains("held 2 live bookings at once") == true)
        // With the cancel sent before the second was answered, no moment had both live.
        let early =
            Array(history.prefix(2))
            + Self.reserve(1, user: 7, slot: "S/A/d/10", key: "b", booking: "b2", .ok, at: 1, took: 60)
            + Self.cancel(2, user: 7, booking: "b1", .ok, at: 20)
        #expect(
            SafetyCheck.check(history: early, listed: [], limit: 1).filter { $0.invariant == "per-user limit" }.isEmpty)
    }

    @Test func anUnknownOutcomeIsResolvedEitherWay() {
        let history =
            Self.reserve(0, user: 1, slot: "S/A/d/9", key: "k", booking: "b1", .ok, at: 0)
            + Self.cancel(1, user: 1, booking: "b1", .info, at: 10)
        for live in [true, false] {
            let listed = [ListedBooking(id: "b1", user: 1, slot: "S/A/d/9", live: live)]
            #expect(SafetyCheck.check(history: history, listed: listed, limit: 3).isEmpty)
        }
    }

    @Test func aRepeatRefusedAfterItsKeyWasAnsweredIsFound() {
        let history =
            Self.reserve(0, user: 1, slot: "S/A/d/9", key: "k", booking: "b1", .ok, at: 0)
            + Self.reserve(1, user: 1, slot: "S/A/d/9", key: "k", booking: nil, .fail, at: 10)
        let listed = [ListedBooking(id: "b1", user: 1, slot: "S/A/d/9", live: true)]
        #expect(
            SafetyCheck.check(history: history, listed: listed, limit: 3).map(\.invariant) == ["idempotent retries"])
    }

    /// A key sent again with another slot is another request: refused, nothing to say; answered
    /// as made (with the key's first booking), a booking the request did not get is claimed.
    @Test func aKeyReusedForAnotherSlotMustNotBeAnsweredAsMade() {
        let first = Self.reserve(0, user: 1, slot: "S/A/d/9", key: "k", booking: "b1", .ok, at: 0)
        let listed = [ListedBooking(id: "b1", user: 1, slot: "S/A/d/9", live: true)]
        let refused = first + Self.reserve(1, user: 1, slot: "S/A/d/10", key: "k", booking: nil, .fail, at: 10)
        #expect(SafetyCheck.check(history: refused, listed: listed, limit: 3).isEmpty)
        let answered = first + Self.reserve(1, user: 1, slot: "S/A/d/10", key: "k", booking: "b1", .ok, at: 10)
        let findings = SafetyCheck.check(history: answered, listed: listed, limit: 3)
        #expect(findings.map(\.invariant) == ["idempotent retries"])
        #expect(findings.first?.explanation.contains("sent again for S/A/d/10") == true)
        // Sent again before the first was answered: the key is not known to be taken yet.
        let overlapping = first + Self.reserve(1, user: 1, slot: "S/A/d/10", key: "k", booking: "b1", .ok, at: 2)
        #expect(SafetyCheck.check(history: overlapping, listed: listed, limit: 3).isEmpty)
    }

    /// Whether an operation sends a placeholder at all: the workload presents wrong access codes
    /// only through an adapter whose check-in sends one.
    static func checkOut(
        _ index: Int, station: String, to place: Coordinate?, _ kind: TargetEvent.Kind, at time: Int64, took: Int64 = 5
    ) -> [TargetEvent] {
        var invoke = TargetEvent(
            index: index, process: index, kind: .invoke, operation: "checkOut", user: 1,
            slot: "\(station)/A/2026-12-01/9",
            booking: "b\(index)", time: time)
        invoke.leftAt = place
        var done = invoke
        (done.kind, done.time) = (kind, time + took)
        return [invoke, done]
    }

    /// I21 against an API: each station a check-out answered as made moved is where a check-out
    /// that may have been its last left it; a refused move does not count, one of unknown outcome
    /// may, and one that returned before the last accepted move began may not.
    @Test func aVehicleMustBeWhereItsLastRideLeftIt() {
        let (a, b, c) = (
            Coordinate(latitude: 52.5, longitude: 13.4), Coordinate(latitude: 52.51, longitude: 13.41),
            Coordinate(latitude: 52.52, longitude: 13.42)
        )
        let history =
            Self.checkOut(0, station: "S", to: a, .ok, at: 0) + Self.checkOut(1, station: "S", to: b, .ok, at: 10)
            + Self.checkOut(2, station: "S", to: c, .fail, at: 20) + Self.checkOut(3, station: "T", to: a, .ok, at: 0)
            + Self.checkOut(4, station: "T", to: c, .info, at: 2, took: 50)
        func findings(_ places: [StationPlace]) -> [String] {
            SafetyCheck.checkPlaces(history: history, places: places).map { $0.explanation }
        }
        // S's last accepted move left it at b; T's at a, or at c by the move still in flight.
        #expect(findings([StationPlace(station: "S", place: b), StationPlace(station: "T", place: a)]).isEmpty)
        #expect(findings([StationPlace(station: "S", place: b), StationPlace(station: "T", place: c)]).isEmpty)
        // Kept to six decimals by the API: still the same place.
        let rounded = Coordinate(latitude: 52.510_000_4, longitude: 13.409_999_6)
        #expect(findings([StationPlace(station: "S", place: rounded), StationPlace(station: "T", place: a)]).isEmpty)
        // Left where an earlier ride ended, or where a refused one would have, or not moved at all.
        for stale in [a, c, nil] {
            let found = findings([StationPlace(station: "S", place: stale), StationPlace(station: "T", place: a)])
            #expect(found.count == 1 && found[0].hasPrefix("station S is at"), "\(found)")
        }
        let missing = SafetyCheck.checkPlaces(history: history, places: [StationPlace(station: "T", place: a)])
        #expect(missing.map(\.invariant) == [SafetyCheck.leftWhereTheLastRideEnded])
        #expect(missing.first?.explanation.contains("missing") == true)
        #expect(missing.first?.events.count == 4)  // S's two accepted moves; the refused one is no evidence
    }

    /// `{latitude}` and `{longitude}` are numbers in a body; without a place, the members that are
    /// exactly them are left out, and the object they leave empty too.
    @Test func aCheckOutSendsItsPlaceOrNone() throws {
        let adapter = try JSONDecoder().decode(
            Adapter.self,
            from: Data(
                #"""
                {"version": 1,
                 "operations": {
                   "reserve": {"method": "POST", "path": "/r"}, "bookings": {"method": "GET", "path": "/b"},
                   "checkOut": {"method": "POST", "path": "/b/{booking}/out",
                                "body": {"leftAt": {"latitude": "{latitude}", "longitude": "{longitude}"}, "note": "at {latitude}"}}},
                 "answers": {"accepted": [200], "refused": [409], "booking": "/id",
                   "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
                """#.utf8))
        let template = try #require(adapter.operations.checkOut)
        var values = Adapter.Values(user: 1)
        values.leftAt = Coordinate(latitude: 52.5, longitude: -13.25)
        let moved = try JSONDecoder().decode(
            JSONValue.self, from: try #require(adapter.render(template, values, token: nil).body))
        #expect(moved.at("/leftAt/latitude") == .number(52.5) && moved.at("/leftAt/longitude") == .number(-13.25))
        #expect(moved.at("/note") == .string("at 52.5"))
        values.leftAt = nil
        let stayed = try JSONDecoder().decode(
            JSONValue.self, from: try #require(adapter.render(template, values, token: nil).body))
        #expect(stayed.at("/leftAt") == nil && stayed.at("/note") == .string("at {latitude}"))
    }

    @Test func aTemplateMentionsItsPlaceholders() throws {
        let json = Data(
            #"{"method": "POST", "path": "/b/{booking}/check-in", "headers": {"X-Code": "{accessCode}"}}"#.utf8)
        let request = try JSONDecoder().decode(Adapter.Request.self, from: json)
        #expect(request.mentions("accessCode") && request.mentions("booking"))
        #expect(!request.mentions("hold"))
        let bare = try JSONDecoder().decode(
            Adapter.Request.self, from: Data(#"{"method": "POST", "path": "/b/{booking}/check-in"}"#.utf8))
        #expect(!bare.mentions("accessCode"))
    }

    @Test func templatesFillPathsHeadersAndTypedBodies() throws {
        let json = Data(
            #"""
            {"version": 1, "auth": {"type": "header", "header": "X-User", "value": "{user}"},
             "operations": {
               "reserve": {"method": "PUT", "path": "/slots/{station}/{date}/{hour}", "headers": {"Idempotency-Key": "{requestID}"},
                           "body": {"at": {"hour": "{hour}", "who": "{user}"}, "note": "user {user} at {hour}"}},
               "bookings": {"method": "GET", "path": "/people/{user}?page={page}"}},
             "answers": {"accepted": [201], "refused": [409], "booking": "/ref",
               "list": {"items": "", "id": "/ref", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}}
            """#.utf8)
        let adapter = try JSONDecoder().decode(Adapter.self, from: json)
        var values = Adapter.Values(user: 17)
        values.station = "IST 1"
        values.date = "2026-12-01"
        values.hour = 14
        values.requestID = "r-1"
        let request = adapter.render(adapter.operations.reserve, values, token: nil)
        #expect(request.path == "/slots/IST%201/2026-12-01/14")
        #expect(request.headers.map(\.0) == ["Idempotency-Key", "X-User", "Content-Type"])
        #expect(request.headers.map(\.1) == ["r-1", "17", "application/json"])
        let body = try JSONDecoder().decode(JSONValue.self, from: try #require(request.body))
        #expect(body.at("/at/hour") == .integer(14))
        #expect(body.at("/at/who") == .integer(17))
        #expect(body.at("/note") == .string("user 17 at 14"))
        #expect(adapter.verdict(status: 201) == .accepted)
        #expect(adapter.verdict(status: 409) == .refused)
        #expect(adapter.verdict(status: 500) == .unknown)
        #expect(adapter.verdict(status: nil) == .unknown)
    }

    /// JSON pointers (RFC 6901): `~1` is `/`, `~0` is `~`, read left to right; an index into an
    /// array; the empty pointer is the whole value.
    @Test func jsonPointersFollowRFC6901() throws {
        let value = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"a/b": 1, "m~n": 2, "~1": 3, "list": [4, {"x": 5}]}"#.utf8))
        #expect(value.at("/a~1b") == .integer(1))
        #expect(value.at("/m~0n") == .integer(2))
        #expect(value.at("/~01") == .integer(3))
        #expect(value.at("/list/1/x") == .integer(5))
        #expect(value.at("/list/2") == nil)
        #expect(value.at("") == value)
        #expect(value.at("a") == nil)
    }

    @Test func hmacSHA256MatchesRFC4231() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(
            hex(HS256.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hex(HS256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            hex(
                HS256.hmac(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(hex(HS256.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(HS256.sha256([UInt8](repeating: 0x61, count: 1000)))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
