import Foundation
import SlotScheduler
import Testing

/// One golden file per wire type (`Golden/wire-<name>.json`): a change to the JSON a service or a
/// journal sees must be deliberate. `UPDATE_GOLDEN=1 swift test --filter WireFormatTests` rewrites
/// them. Every sample also decodes back to itself.
@Suite struct WireFormatTests {
    static let day = LocalDate(dayNumber: 20_422)  // 2025-11-30
    static let slot = Slot(station: "IST-1", socket: "A", date: day, hour: 14)
    static let station = Station(
        id: "IST-1", name: "Kadıköy", city: "İstanbul", timeZone: "Europe/Istanbul",
        coordinate: Coordinate(latitude: 40.99, longitude: 29.03),
        sockets: [Socket(id: "A", connector: .ccs, powerKW: 50)], facilities: ["cafe"])
    static let now = Instant.utc(LocalDate(dayNumber: 20_421), hour: 9)

    static func ledger() throws -> Ledger {
        try Ledger(stations: [station], policy: Policy(maxUpcomingBookings: 2, minimumNotice: .seconds(3_600)))
    }

    static func booking() throws -> Booking {
        var ledger = try ledger()
        return try ledger.reserve(
            ReservationRequest(slot: slot, user: 17, requestID: "req-1", reminder: .seconds(900)), at: now)
    }

    static func encode<T: Encodable>(_ value: T, language: MessageLanguage = .english) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.userInfo[.messageLanguage] = language
        return try encoder.encode(value)
    }

    func check<T: Codable & Equatable>(_ name: String, _ value: T, language: MessageLanguage = .english) throws {
        let bytes = try Self.encode(value, language: language)
        #expect(try JSONDecoder().decode(T.self, from: bytes) == value, "\(name) does not decode to itself")
        let file = "wire-\(name)"
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Golden").appendingPathComponent("\(file).json")
            try bytes.write(to: url)
            Issue.record("UPDATE_GOLDEN=1: wrote \(url.path); run again without it")
            return
        }
        let url = try #require(
            Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Golden"),
            "no golden file \(file).json; run UPDATE_GOLDEN=1 swift test --filter WireFormatTests")
        let committed = try Data(contentsOf: url)
        #expect(committed == bytes, "\(name): \(String(decoding: bytes, as: UTF8.self))")
    }

    @Test func reservationRequest() throws {
        try check(
            "ReservationRequest",
            ReservationRequest(slot: Self.slot, user: 17, requestID: "req-1", reminder: .seconds(900)))
    }

    @Test func booking() throws { try check("Booking", try Self.booking()) }

    @Test func rejection() throws {
        var ledger = try Self.ledger()
        let tooSoon = Slot(station: "IST-1", socket: "A", date: LocalDate(dayNumber: 20_421), hour: 12)
        do {
            _ = try ledger.reserve(ReservationRequest(slot: tooSoon, user: 17), at: Self.now)
            Issue.record("expected a refusal")
        } catch {
            try check("Rejection", error)
            try check("Rejection-tr", error, language: .turkish)
        }
    }

    @Test func invalidValue() throws {
        let refused = #expect(throws: InvalidValue.self) {
            try Catalog([Self.station]).search(StationQuery(pageSize: 0))
        }
        let error = try #require(refused)
        try check("InvalidValue", error)
        try check("InvalidValue-tr", error, language: .turkish)
    }

    @Test func dayView() throws {
        var ledger = try Self.ledger()
        _ = try ledger.reserve(ReservationRequest(slot: Self.slot, user: 17), at: Self.now)
        try check("DayView", try ledger.dayView(of: "IST-1", on: Self.day, at: Self.now))
    }

    @Test func stationPage() throws {
        let catalog = try Catalog([Self.station])
        try check(
            "StationPage",
            try catalog.search(StationQuery(near: Coordinate(latitude: 41, longitude: 29), page: 0, pageSize: 1)))
    }

    @Test func events() throws {
        var ledger = try Self.ledger()
        let booking = try ledger.reserve(ReservationRequest(slot: Self.slot, user: 17, requestID: "r"), at: Self.now)
        try ledger.cancel(booking.id, by: 17, at: Self.now + .seconds(60))
        _ = try ledger.reserve(ReservationRequest(slot: Self.slot, user: 18), at: Self.now + .seconds(120))
        try ledger.changeAvailability(.close("IST-1", socket: "A", on: Self.day), at: Self.now + .seconds(180))
        try check("Events", ledger.events)
        try check("Snapshot", ledger.snapshot())
    }

    /// Hold events (version 2) and a snapshot with a hold (version 2).
    @Test func holdEventsAndSnapshot() throws {
        var ledger = try Self.ledger()
        let other = Slot(station: "IST-1", socket: "A", date: Self.day, hour: 15)
        try ledger.hold(Self.slot, for: 17, reminder: .seconds(900), at: Self.now)
        _ = try ledger.confirm(Self.slot, by: 17, at: Self.now + .seconds(60))
        try ledger.hold(other, for: 18, at: Self.now + .seconds(120))
        try ledger.releaseHold(other, by: 18, at: Self.now + .seconds(180))
        try ledger.hold(other, for: 18, at: Self.now + .seconds(240))
        try check("Events-holds", ledger.events)
        try check("Snapshot-holds", ledger.snapshot())
        try check("Hold", try #require(ledger.holds(at: Self.now + .seconds(240)).first))
        do {
            _ = try ledger.confirm(other, by: 18, at: Self.now + .seconds(840))
            Issue.record("a confirm after the expiry was accepted")
        } catch let rejection as Rejection {
            try check("Rejection-holdExpired", rejection)
        }
    }

    /// Journals and snapshots written before version 1 (instants as seconds, booking ids as
    /// numbers) still decode; an unknown event version is refused.
    @Test func olderFormsDecodeAndUnknownVersionsAreRefused() throws {
        let old = Data(
            #"{"createdAt":1521921600,"id":1,"slot":{"date":"2018-03-25","hour":9,"socket":"1","station":"S0"},"start":1521964800,"status":"active","user":1}"#
                .utf8)
        let booking = try JSONDecoder().decode(Booking.self, from: old)
        #expect(booking.id == BookingID(1))
        #expect(booking.start == Instant(secondsSinceEpoch: 1_521_964_800))
        let future = Data(
            #"{"version":\#(Event.newestWireVersion + 1),"type":"cancelled","booking":"1","user":1,"at":"2018-03-25T09:00:00Z"}"#
                .utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Event.self, from: future) }
        #expect(Instant(iso8601: "2018-03-25T09:00:00Z") == Instant(secondsSinceEpoch: 1_521_968_400))
        for bad in [
            "2018-03-25T24:00:00Z", "2018-03-25 09:00:00Z", "2018-03-25T09:00:00+01:00", "", "x",
            "2018-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "2018-03-25T09:00:60Z", "+018-03-25T09:00:00Z",
        ] {
            #expect(Instant(iso8601: bad) == nil, "\(bad)")
        }
    }

    /// A booking at the first or last supported date starts a day beyond them in some zones
    /// (1899-12-31T22:03:04Z in Istanbul's local mean time): its snapshot and events read back.
    /// Only years 1900–2399 were read, so these failed to decode.
    @Test func bookingsAtTheEdgesOfTheSupportedDatesReadBack() throws {
        let west = Station(
            id: "LAX-1", name: "LA", city: "Los Angeles", timeZone: "America/Los_Angeles",
            sockets: [Socket(id: "A", connector: .ccs, powerKW: 50)])
        var ledger = try Ledger(stations: [Self.station, west], policy: Policy(maxUpcomingBookings: 2))
        let first = try LocalDate(year: 1900, month: 1, day: 1)
        let last = try LocalDate(year: 2399, month: 12, day: 31)
        let early = try ledger.reserve(
            ReservationRequest(slot: Slot(station: "IST-1", socket: "A", date: first, hour: 0), user: 1),
            at: Instant.utc(first, hour: -48))
        let late = try ledger.reserve(
            ReservationRequest(slot: Slot(station: "LAX-1", socket: "A", date: last, hour: 23), user: 1),
            at: Instant.utc(first, hour: -48))
        #expect(early.start.description.hasPrefix("1899-12-31T"))
        #expect(late.start.description.hasPrefix("2400-01-01T"))
        let snapshot = ledger.snapshot()
        let decoded = try JSONDecoder().decode(Snapshot.self, from: try Self.encode(snapshot))
        #expect(decoded == snapshot)
        let events = ledger.events(since: 0)
        #expect(try JSONDecoder().decode([Event].self, from: try Self.encode(events)) == events)
    }

    /// Every instant reads back: ISO 8601 with a four-digit year (years below 1000 padded), and
    /// whole seconds beyond the years it writes.
    @Test func everyInstantRoundTrips() throws {
        let edges = [Instant.iso8601Range.lowerBound, Instant.iso8601Range.upperBound]
        for instant in edges + [Instant(secondsSinceEpoch: -62_000_000_000), Instant(secondsSinceEpoch: .max)]
            + [Instant(secondsSinceEpoch: .min), Instant(secondsSinceEpoch: 0), Instant.supportedRange.upperBound]
        {
            let bytes = try JSONEncoder().encode([instant])
            #expect(try JSONDecoder().decode([Instant].self, from: bytes) == [instant], "\(instant)")
        }
        #expect(Instant.iso8601Range.lowerBound.description == "0001-01-01T00:00:00Z")
        #expect(Instant(iso8601: "9999-12-31T23:59:59Z") == Instant.iso8601Range.upperBound)
    }
}
