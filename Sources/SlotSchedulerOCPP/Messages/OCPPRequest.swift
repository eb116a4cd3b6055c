import SlotScheduler

/// An OCPP 2.0.1 request: its action's name and the type of its answer.
public protocol OCPPRequest: Codable, Hashable, Sendable {
    associatedtype Response: Codable, Hashable, Sendable
    static var action: String { get }
}

/// An answer with no field (`{}`), as StatusNotification's and ReservationStatusUpdate's.
public struct EmptyResponse: Codable, Hashable, Sendable {
    public init() {}
}

/// An idToken (OCPP 2.0.1 `IdTokenType`): the bridge sends and recognizes a user as
/// `{idToken: "<user id>", type: "Central"}`.
public struct IdToken: Codable, Hashable, Sendable {
    public var idToken: String
    public var type: String

    public init(idToken: String, type: String = "Central") {
        self.idToken = idToken
        self.type = type
    }

    /// Reads the two strings within OCPP 2.0.1's bounds (`idToken` at most 36 characters, its
    /// type at most 20); a longer one is a PropertyConstraintViolation naming it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        idToken = try c.decodeText(.idToken, maxLength: 36)
        type = try c.decodeText(.type, maxLength: 20)
    }

    /// The user this token names when it is one the bridge issues (ReserveNow's): type
    /// `Central` and the user id as `UserID` prints it. Nothing else names a user:
    /// a code typed at the charger (`KeyCode`), a card's number (`ISO14443`), `NoAuthorization`,
    /// or `0017` for user 17, since user ids are not secret.
    public var user: UserID? {
        guard type == "Central", let user = UserID(idToken), user.description == idToken else { return nil }
        return user
    }
}

/// What an idToken may do (`IdTokenInfoType`); only the status is sent.
public struct IdTokenInfo: Codable, Hashable, Sendable {
    public var status: Status

    public enum Status: String, Codable, Hashable, Sendable {
        case accepted = "Accepted"
        case blocked = "Blocked"
        case concurrentTx = "ConcurrentTx"
        case expired = "Expired"
        case invalid = "Invalid"
        case noCredit = "NoCredit"
        case notAllowedTypeEVSE = "NotAllowedTypeEVSE"
        case notAtThisLocation = "NotAtThisLocation"
        case notAtThisTime = "NotAtThisTime"
        case unknown = "Unknown"
    }

    public init(status: Status) { self.status = status }
}

extension KeyedDecodingContainer {
    /// The string at `key`, refused (`dataCorrupted`, naming the field) past `maxLength`
    /// characters, as OCPP's schemas bound every string a station sends.
    func decodeText(_ key: Key, maxLength: Int) throws -> String {
        let text = try decode(String.self, forKey: key)
        guard text.count <= maxLength else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "`\(key.stringValue)` is longer than \(maxLength) characters")
        }
        return text
    }
}
