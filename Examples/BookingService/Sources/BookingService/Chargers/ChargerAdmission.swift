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
        if let refusal = Self.handshakeRefusal(request) { return .refuse(refusal) }
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

    /// What makes `request` no WebSocket opening handshake (RFC 6455, 4.2.1), or nil: a method
    /// other than GET, a body, no `Sec-WebSocket-Key` of 16 bytes in base64, a `Sec-WebSocket-Version`
    /// other than 13 (answered 426 with the version this server speaks, as 4.4 asks).
    static func handshakeRefusal(_ request: HTTPRequest) -> ChargerRefusal? {
        guard request.method == .get else { return .handshake("the method is \(request.method), not GET") }
        // The upgrader would switch protocols with the body still to come, and the connection
        // would hang, neither HTTP nor WebSocket.
        let length = request.headerFields[values: .contentLength]
        guard request.headerFields[.transferEncoding] == nil, length.isEmpty || length == ["0"] else {
            return .handshake("an opening handshake has no body")
        }
        let key = request.headerFields[values: .secWebSocketKey]
        guard key.count == 1, key[0].utf8.count == 24, Data(base64Encoded: key[0])?.count == 16 else {
            return .handshake("no Sec-WebSocket-Key of 16 bytes in base64")
        }
        guard request.headerFields[values: .secWebSocketVersion] == ["13"] else { return .unsupportedVersion }
        return nil
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
    /// Whether the answer names the WebSocket version spoken here (`Sec-WebSocket-Version: 13`).
    var versionOffered = false

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

    /// A request that is no WebSocket opening handshake: `why` says what is wrong.
    static func handshake(_ why: String) -> ChargerRefusal {
        ChargerRefusal(
            status: .badRequest, reason: .malformedRequest,
            message: "This is no WebSocket opening handshake (RFC 6455): \(why).", description: "handshake: \(why)")
    }

    /// A `Sec-WebSocket-Version` other than 13: 426, naming the version this server speaks.
    static let unsupportedVersion = ChargerRefusal(
        status: .upgradeRequired, reason: .malformedRequest,
        message: "This server speaks WebSocket version 13 only (Sec-WebSocket-Version).",
        description: "handshake: Sec-WebSocket-Version is not 13", versionOffered: true)

    static func noSubprotocol(_ station: StationID) -> ChargerRefusal {
        ChargerRefusal(
            status: .badRequest, reason: .malformedRequest,
            message:
                "The WebSocket must offer the subprotocol \(ChargerAdmission.subprotocol) (Sec-WebSocket-Protocol).",
            description: "\(station): \(ChargerAdmission.subprotocol) not offered")
    }
}
