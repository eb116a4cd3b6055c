import Foundation
import SlotScheduler
import SlotSchedulerOCPP
import Testing

/// A station of two sockets in UTC, open all day, and a scheduler over it; times on 2026-03-02.
struct ChargerFixture {
    static let station = Station(
        id: "S1", name: "Depot", city: "London", timeZone: "UTC",
        sockets: [Socket(id: "A", connector: .ccs, powerKW: 50), Socket(id: "B", connector: .ccs, powerKW: 50)])

    let scheduler: Scheduler
    let bridge: ChargerBridge

    /// `station` (S1 unless given: a test's own sockets, an access code).
    init(timing: ChargerTiming = ChargerTiming(), station: Station = Self.station) throws {
        let catalog = try Catalog([station])
        scheduler = Scheduler(rules: try Rules(catalog: catalog, policy: Policy(maxUpcomingBookings: 10)))
        bridge = ChargerBridge(service: scheduler, timing: timing, evses: try EVSEMap(catalog: catalog))
    }

    /// 2026-03-02 (a test checks the number).
    static let date = LocalDate(dayNumber: 20_514)

    /// `hour:minute` on the fixture's date, UTC.
    static func at(_ hour: Int, _ minute: Int = 0) -> Instant {
        Instant(secondsSinceEpoch: Int64(date.dayNumber) * 86_400 + Int64(hour * 3_600 + minute * 60))
    }

    static func slot(_ socket: SocketID, _ hour: Int) -> Slot {
        Slot(station: "S1", socket: socket, date: date, hour: hour)
    }

    func book(_ socket: SocketID, _ hour: Int, user: UserID) throws -> Booking {
        try scheduler.reserve(ReservationRequest(slot: Self.slot(socket, hour), user: user), at: Self.at(6))
    }
}

/// A frame's call: action and payload, or an issue recorded.
func call(_ frame: OCPPFrame?) -> (id: String, action: String, payload: JSONValue)? {
    guard case .call(let id, let action, let payload) = frame else { return nil }
    return (id, action, payload)
}

/// The object field `key` of a payload.
func field(_ payload: JSONValue?, _ key: String) -> JSONValue? {
    guard case .object(let object) = payload else { return nil }
    return object[key]
}

/// A CALL frame's text, as a station sends it.
func stationCall(_ id: String, _ action: String, _ payload: String) -> String {
    "[2,\"\(id)\",\"\(action)\",\(payload)]"
}

/// A `TransactionEvent` as a station sends it: `type` (`Started`, `Updated`, `Ended`) of
/// transaction `transaction` at `time`, with the token and the EVSE (connector 1) when given.
func transactionEvent(
    _ id: String, _ type: String, transaction: String, token: String? = nil, evse: Int? = nil, at time: Instant
) -> String {
    var fields = [
        #""eventType":"\#(type)""#, #""timestamp":"\#(OCPPDateTime(time))""#, #""triggerReason":"Authorized""#,
        #""seqNo":0"#, #""transactionInfo":{"transactionId":"\#(transaction)"}"#,
    ]
    if let token { fields.append(#""idToken":{"idToken":"\#(token)","type":"Central"}"#) }
    if let evse { fields.append(#""evse":{"id":\#(evse),"connectorId":1}"#) }
    return stationCall(id, "TransactionEvent", "{" + fields.joined(separator: ",") + "}")
}

/// The `idTokenInfo.status` of a CALLRESULT answer (the first frame), if it has one.
func tokenStatus(_ frames: [OCPPFrame]) -> JSONValue? {
    guard case .result(_, let payload) = frames.first else { return nil }
    return field(field(payload, "idTokenInfo"), "status")
}
