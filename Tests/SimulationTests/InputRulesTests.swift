import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// Numbers with a fraction, time zone spellings and Unicode spellings of ids: one rule each,
/// with the path of what breaks it.
@Suite struct InputRules {
    let bad = BadInput()

    /// The scenario with the value at `path` replaced by the raw JSON text `raw`.
    func error(_ path: [String], raw: String) throws -> ScenarioError? {
        var object = try bad.baseJSON()
        bad.set(&object, path, "@@RAW@@")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            .replacingOccurrences(of: "\"@@RAW@@\"", with: raw)
        return bad.error(Data(text.utf8))
    }

    @Test(
        arguments: [
            (["users", "count"], "2.5", "users.count"),
            (["workload", "operations"], "2.5", "workload.operations"),
            (["workload", "hours"], "[8, 9.5]", "workload.hours[1]"),
            (["steps", "0", "hour"], "9.25", "steps[0].hour"),
            (["steps", "0", "user"], "1.5", "steps[0].user"),
            (["seed"], "2.5", "seed"),
            (["policy", "maxUpcomingBookings"], "3.000001", "policy.maxUpcomingBookings"),
            (["users", "count"], "1e400", "users.count"),
            (["users", "count"], "1e30", "users.count"),
        ] as [([String], String, String)])
    func aFractionWhereAnIntegerBelongsIsRefusedWithItsPath(path: [String], raw: String, expectedPath: String)
        throws
    {
        let found = try #require(try error(path, raw: raw), "\(raw) at \(expectedPath) should be refused")
        #expect(found.path == expectedPath, "\(found)")
        #expect(found.expected.hasPrefix("an integer"), "\(found)")
        #expect(
            found.value == raw.split(separator: ",").last.map { $0.trimmingCharacters(in: .init(charactersIn: " ]")) })
    }

    /// Whole numbers written with a fraction or an exponent are integers (as JSON Schema says),
    /// and the fields that hold fractions keep them.
    @Test(
        arguments: [
            (["users", "count"], "10.0"), (["users", "count"], "1e1"), (["workload", "hotness", "share"], "0.25"),
            (["stations", "0", "sockets", "0", "powerKW"], "7.4"),
        ] as [([String], String)])
    func integralNumbersAndDecimalFieldsAreAccepted(path: [String], raw: String) throws {
        #expect(try error(path, raw: raw) == nil)
    }

    /// A fixed offset is not a zone, however Foundation spells it; zone names are accepted,
    /// whole-hour Etc/ names included.
    @Test(arguments: ["GMT+0530", "GMT+05:30", "UTC+05:30", "UTC-3", "UT+1", "GMT-07:00"])
    func fixedOffsetsAreRefusedWithAClearMessage(zone: String) throws {
        let found = try #require(try bad.error { bad.set(&$0, ["stations", "0", "timeZone"], zone) })
        #expect(found.path == "stations[0].timeZone")
        #expect(found.expected.contains("not a fixed offset"), "\(found)")
        #expect(found.value == zone)
    }

    @Test(arguments: ["Asia/Kolkata", "Asia/Kathmandu", "Etc/GMT-5", "UTC", "GMT", "Australia/Lord_Howe"])
    func zoneNamesAreAccepted(zone: String) throws {
        #expect(try bad.error { bad.set(&$0, ["stations", "0", "timeZone"], zone) } == nil)
    }

    @Test(arguments: ["Mars/Olympus_Mons", "+05:30", "gmt", "Europe/london"])
    func unknownZonesAreRefused(zone: String) throws {
        let found = try #require(try bad.error { bad.set(&$0, ["stations", "0", "timeZone"], zone) })
        #expect(found.path == "stations[0].timeZone")
        #expect(found.expected.contains("IANA time zone"), "\(found)")
    }

    static let nfc = "\u{E9}"  // é
    static let nfd = "e\u{301}"  // e + combining acute

    /// Ids are the same only when spelled with the same scalars, as PostgreSQL compares text: an
    /// NFD reference does not name an NFC station.
    @Test func anNFDReferenceDoesNotNameAnNFCStation() throws {
        #expect(Self.nfc == Self.nfd)  // Swift's String ==, which ids do not use
        #expect(StationID(Self.nfc) != StationID(Self.nfd))
        #expect(Set([SocketID(Self.nfc), SocketID(Self.nfd)]).count == 2)
        let found = try #require(
            try bad.error {
                bad.set(&$0, ["stations", "0", "id"], Self.nfc)
                bad.set(&$0, ["steps", "0", "station"], Self.nfd)
            })
        #expect(found.path == "steps[0].station", "\(found)")
        #expect(
            try bad.error {
                bad.set(&$0, ["stations", "0", "id"], Self.nfc)
                bad.set(&$0, ["steps", "0", "station"], Self.nfc)
            } == nil)
    }

    /// The core: an NFD request id is another request than the NFC one (not a repeat), and an NFD
    /// station reference is an unknown station.
    @Test func theCoreComparesIdsBySpelling() throws {
        let station = Station(
            id: StationID(Self.nfc), name: "S", city: "C", timeZone: "Europe/London",
            sockets: [Socket(id: "1", connector: .ccs, powerKW: 50)])
        let rules = try Rules(catalog: Catalog([station]), policy: Policy(maxUpcomingBookings: 5))
        let scheduler = Scheduler(rules: rules)
        let now = try Timestamp(parsing: "2018-06-06T08:00:00Z").instant
        let date = Fixtures.date("2018-06-07")
        let slot = Slot(station: StationID(Self.nfc), socket: "1", date: date, hour: 9)
        let first = try scheduler.reserve(
            ReservationRequest(slot: slot, user: 1, requestID: RequestID(Self.nfc)), at: now)
        // The same spelling repeats the request; the other spelling is a new one, refused: taken.
        #expect(
            try scheduler.reserve(ReservationRequest(slot: slot, user: 1, requestID: RequestID(Self.nfc)), at: now).id
                == first.id)
        #expect(throws: Rejection.self) {
            try scheduler.reserve(ReservationRequest(slot: slot, user: 1, requestID: RequestID(Self.nfd)), at: now)
        }
        var other = slot
        other.station = StationID(Self.nfd)
        other.hour = 10
        let refusal = #expect(throws: Rejection.self) {
            try scheduler.reserve(ReservationRequest(slot: other, user: 2), at: now)
        }
        #expect(refusal?.reason == .unknownStation)
    }
}
