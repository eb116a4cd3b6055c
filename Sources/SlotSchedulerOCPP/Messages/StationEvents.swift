/// `StatusNotification`: a connector's status changed.
public struct StatusNotificationRequest: OCPPRequest {
    public static let action = "StatusNotification"
    public typealias Response = EmptyResponse
    public var timestamp: OCPPDateTime
    public var connectorStatus: ConnectorStatus
    public var evseId: Int
    public var connectorId: Int

    public enum ConnectorStatus: String, Codable, Hashable, Sendable {
        case available = "Available"
        case occupied = "Occupied"
        case reserved = "Reserved"
        case unavailable = "Unavailable"
        case faulted = "Faulted"

        /// Whether the connector cannot charge anyone: its hours are closed while it lasts.
        public var isOutOfService: Bool { self == .unavailable || self == .faulted }
    }

    public init(timestamp: OCPPDateTime, connectorStatus: ConnectorStatus, evseId: Int, connectorId: Int) {
        self.timestamp = timestamp
        self.connectorStatus = connectorStatus
        self.evseId = evseId
        self.connectorId = connectorId
    }
}

/// `Authorize`: the station asks whether an idToken may charge.
public struct AuthorizeRequest: OCPPRequest {
    public static let action = "Authorize"
    public var idToken: IdToken

    public init(idToken: IdToken) { self.idToken = idToken }

    public struct Response: Codable, Hashable, Sendable {
        public var idTokenInfo: IdTokenInfo
        public init(idTokenInfo: IdTokenInfo) { self.idTokenInfo = idTokenInfo }
    }
}

/// `TransactionEvent`: a charging session started, changed or ended. Only the fields the bridge
/// reads are declared; the others are accepted and ignored.
public struct TransactionEventRequest: OCPPRequest {
    public static let action = "TransactionEvent"
    public var eventType: EventType
    public var timestamp: OCPPDateTime
    public var triggerReason: String
    public var seqNo: Int
    public var transactionInfo: TransactionInfo
    public var idToken: IdToken?
    public var evse: EVSE?
    public var reservationId: Int64?

    public enum EventType: String, Codable, Hashable, Sendable {
        case started = "Started"
        case updated = "Updated"
        case ended = "Ended"
    }

    public struct TransactionInfo: Codable, Hashable, Sendable {
        public var transactionId: String
        public init(transactionId: String) { self.transactionId = transactionId }

        /// `transactionId` is at most 36 characters (OCPP 2.0.1); a longer one is refused.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            transactionId = try c.decodeText(.transactionId, maxLength: 36)
        }
    }

    public struct EVSE: Codable, Hashable, Sendable {
        public var id: Int
        public var connectorId: Int?
        public init(id: Int, connectorId: Int? = nil) {
            self.id = id
            self.connectorId = connectorId
        }
    }

    public init(
        eventType: EventType, timestamp: OCPPDateTime, triggerReason: String, seqNo: Int,
        transactionInfo: TransactionInfo, idToken: IdToken? = nil, evse: EVSE? = nil, reservationId: Int64? = nil
    ) {
        self.eventType = eventType
        self.timestamp = timestamp
        self.triggerReason = triggerReason
        self.seqNo = seqNo
        self.transactionInfo = transactionInfo
        self.idToken = idToken
        self.evse = evse
        self.reservationId = reservationId
    }

    public struct Response: Codable, Hashable, Sendable {
        public var idTokenInfo: IdTokenInfo?
        public init(idTokenInfo: IdTokenInfo? = nil) { self.idTokenInfo = idTokenInfo }
    }
}
