/// `BootNotification`: the station says it started; the answer gives the heartbeat interval.
public struct BootNotificationRequest: OCPPRequest {
    public static let action = "BootNotification"
    public var chargingStation: ChargingStation
    public var reason: String

    public struct ChargingStation: Codable, Hashable, Sendable {
        public var model: String
        public var vendorName: String
        public var serialNumber: String?
        public var firmwareVersion: String?

        public init(model: String, vendorName: String, serialNumber: String? = nil, firmwareVersion: String? = nil) {
            self.model = model
            self.vendorName = vendorName
            self.serialNumber = serialNumber
            self.firmwareVersion = firmwareVersion
        }
    }

    public init(chargingStation: ChargingStation, reason: String = "PowerUp") {
        self.chargingStation = chargingStation
        self.reason = reason
    }

    public struct Response: Codable, Hashable, Sendable {
        public var currentTime: OCPPDateTime
        public var interval: Int
        public var status: String

        public init(currentTime: OCPPDateTime, interval: Int, status: String = "Accepted") {
            self.currentTime = currentTime
            self.interval = interval
            self.status = status
        }
    }
}

/// `Heartbeat`: the station is alive; the answer gives the time.
public struct HeartbeatRequest: OCPPRequest {
    public static let action = "Heartbeat"
    public init() {}

    public struct Response: Codable, Hashable, Sendable {
        public var currentTime: OCPPDateTime
        public init(currentTime: OCPPDateTime) { self.currentTime = currentTime }
    }
}
