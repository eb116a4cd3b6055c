/// `ReserveNow`: the bridge asks the station to hold an EVSE for a booking's user until
/// `expiryDateTime`.
public struct ReserveNowRequest: OCPPRequest {
    public static let action = "ReserveNow"
    public var id: Int64
    public var expiryDateTime: OCPPDateTime
    public var idToken: IdToken
    public var evseId: Int?

    public init(id: Int64, expiryDateTime: OCPPDateTime, idToken: IdToken, evseId: Int?) {
        self.id = id
        self.expiryDateTime = expiryDateTime
        self.idToken = idToken
        self.evseId = evseId
    }

    public struct Response: Codable, Hashable, Sendable {
        public var status: ReserveNowStatus
        public init(status: ReserveNowStatus) { self.status = status }
    }
}

/// The station's answer to `ReserveNow`.
public enum ReserveNowStatus: String, Codable, Hashable, Sendable {
    case accepted = "Accepted"
    case faulted = "Faulted"
    case occupied = "Occupied"
    case rejected = "Rejected"
    case unavailable = "Unavailable"
}

/// `CancelReservation`: the bridge withdraws a reservation it sent.
public struct CancelReservationRequest: OCPPRequest {
    public static let action = "CancelReservation"
    public var reservationId: Int64

    public init(reservationId: Int64) { self.reservationId = reservationId }

    public struct Response: Codable, Hashable, Sendable {
        public var status: String
        public init(status: String) { self.status = status }
    }
}

/// `ReservationStatusUpdate`: the station ended a reservation by itself.
public struct ReservationStatusUpdateRequest: OCPPRequest {
    public static let action = "ReservationStatusUpdate"
    public typealias Response = EmptyResponse
    public var reservationId: Int64
    public var reservationUpdateStatus: UpdateStatus

    public enum UpdateStatus: String, Codable, Hashable, Sendable {
        case expired = "Expired"
        case removed = "Removed"
    }

    public init(reservationId: Int64, reservationUpdateStatus: UpdateStatus) {
        self.reservationId = reservationId
        self.reservationUpdateStatus = reservationUpdateStatus
    }
}
