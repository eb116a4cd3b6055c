/// When the bridge tells a charger about a booking, and how long a fault closes a socket.
public struct ChargerTiming: Hashable, Sendable {
    /// How long before a booking's start its `ReserveNow` is sent (OCPP has no future
    /// reservations: each one runs from when it is sent to its expiry). 15 minutes by default.
    public var reserveLeadSeconds: Int64
    /// How many hours, from the current one, a `Faulted` or `Unavailable` connector closes;
    /// extended while the fault lasts. 2 by default.
    public var faultHorizonHours: Int
    /// The heartbeat interval a `BootNotification` is answered with, in seconds.
    public var heartbeatIntervalSeconds: Int

    public init(reserveLead: Duration = .seconds(900), faultHorizonHours: Int = 2, heartbeatIntervalSeconds: Int = 300)
    {
        self.reserveLeadSeconds = max(0, reserveLead.components.seconds)
        self.faultHorizonHours = min(max(1, faultHorizonHours), 48)
        self.heartbeatIntervalSeconds = max(1, heartbeatIntervalSeconds)
    }
}
