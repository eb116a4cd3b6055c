import Foundation
import Hummingbird
import SlotScheduler

/// Who may open a WebSocket: a request to `/ocpp/{stationId}` that offers the subprotocol
/// `ocpp2.0.1` and carries the station's Basic credentials (the username is the station id).
/// Decided once by the upgrade, and again by ``UpgradeFallback`` to answer a refusal: the
/// decision reads nothing but the request.
struct ChargerAdmission: Sendable {
    static let subprotocol = "ocpp2.0.1"
    static let pathPrefix = "/ocpp/"

    let passwords: StationPasswords
    let catalog: Catalog

    enum Decision: Sendable {
        case accept(StationID)
        case refuse(ChargerRefusal)
    }

    func decide(_ request: HTTPRequest) -> Decision {
        guard let station = Self.station(inPath: request.path ?? "") else { return .refuse(.notAnOCPPPath) }
        let credentials = StationPasswords.basicCredentials(request.headerFields[.authorization])
        guard let credentials, StationID(credentials.username) == station else {
            return .refuse(.unauthorized(station, credentials == nil ? "no Basic credentials" : "another username"))
        }
        guard catalog.station(station) != nil, passwords.accepts(credentials.password, of: station) else {
            return .refuse(.unauthorized(station, "unknown station or wrong password"))
        }
        guard Self.offersSubprotocol(request.headerFields[values: .secWebSocketProtocol]) else {
            return .refuse(.noSubprotocol(station))
        }
        return .accept(station)
    }

    /// The station id of `/ocpp/{stationId}` (percent-decoded; no further `/`), without the query.
    static func station(inPath path: String) -> StationID? {
        let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard route.hasPrefix(pathPrefix) else { return nil }
        let encoded = route.dropFirst(pathPrefix.count)
        guard !encoded.isEmpty, !encoded.contains("/"), let id = String(encoded).removingPercentEncoding,
            IdentifierRule.isValid(id)
        else { return nil }
        return StationID(id)
    }

    /// Whether `Sec-WebSocket-Protocol` (one or more fields of comma-separated tokens) offers
    /// `ocpp2.0.1`.
    static func offersSubprotocol(_ values: [String]) -> Bool {
        values.contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == subprotocol }
        }
    }
}

/// Why an upgrade was refused, and the answer it gets instead of `101 Switching Protocols`.
struct ChargerRefusal: Sendable, CustomStringConvertible {
    var status: HTTPResponse.Status
    var reason: APIError.Reason
    var message: String
    /// What the log says (never the password).
    var description: String
    var challenge: String?

    /// The answer's body.
    var detail: OwnBody { OwnBody(reason: reason.rawValue, message: message) }

    /// A WebSocket upgrade anywhere but `/ocpp/{stationId}`.
    static let notAnOCPPPath = ChargerRefusal(
        status: .notFound, reason: .notFound,
        message: "No WebSocket is served here: charge points connect to /ocpp/{stationId}.",
        description: "not /ocpp/{stationId}")

    /// No credentials, or not this station's. The answer does not say which, nor whether the
    /// station exists.
    static func unauthorized(_ station: StationID, _ why: String) -> ChargerRefusal {
        ChargerRefusal(
            status: .unauthorized, reason: .unauthenticated,
            message: "A charge point authenticates with HTTP Basic: its station id and its password.",
            description: "\(station): \(why)", challenge: #"Basic realm="OCPP", charset="UTF-8""#)
    }

    static func noSubprotocol(_ station: StationID) -> ChargerRefusal {
        ChargerRefusal(
            status: .badRequest, reason: .malformedRequest,
            message:
                "The WebSocket must offer the subprotocol \(ChargerAdmission.subprotocol) (Sec-WebSocket-Protocol).",
            description: "\(station): \(ChargerAdmission.subprotocol) not offered")
    }
}
