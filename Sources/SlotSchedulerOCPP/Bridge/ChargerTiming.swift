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
    /// How long after its start a checked-in booking is still looked for when a
    /// `TransactionEvent` `Ended` names its user's token but not a transaction the bridge saw
    /// start (one started before a restart). 24 hours by default, at most 7 days.
    public var sessionLookbackSeconds: Int64

    public init(
        reserveLead: Duration = .seconds(900), faultHorizonHours: Int = 2, heartbeatIntervalSeconds: Int = 300,
        sessionLookback: Duration = .seconds(86_400)
    ) {
        self.reserveLeadSeconds = max(0, reserveLead.components.seconds)
        self.faultHorizonHours = min(max(1, faultHorizonHours), 48)
        self.heartbeatIntervalSeconds = max(1, heartbeatIntervalSeconds)
        self.sessionLookbackSeconds = min(max(0, sessionLookback.components.seconds), 7 * 86_400)
    }
}
