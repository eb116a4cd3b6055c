import ArgumentParser

/// `--ocpp` and its settings: charge points connect over OCPP 2.0.1 (a WebSocket at
/// `/ocpp/{stationId}` on the HTTP port) and are told about the bookings at their sockets.
struct ChargerOptions: ParsableArguments {
    @Flag(
        help: """
            Serve charge points: OCPP 2.0.1 over a WebSocket at ws://HOST:PORT/ocpp/STATION_ID \
            (subprotocol ocpp2.0.1, HTTP Basic auth: the station id and its password). Bookings \
            are sent as ReserveNow; faults close sockets; a token presented checks its user in.
            """)
    var ocpp = false

    @Option(
        name: .customLong("ocpp-passwords"),
        help: """
            With --ocpp (required): a JSON file {"STATION_ID": "PASSWORD", …}, the Basic auth \
            password of each station that may connect; a station not in it is refused.
            """)
    var passwords: String?

    @Option(
        name: .customLong("ocpp-reserve-lead"),
        help: "With --ocpp: how many minutes before a booking's start its ReserveNow is sent (0...1440; default 15).")
    var reserveLeadMinutes: Int?

    @Option(
        name: .customLong("ocpp-fault-horizon"),
        help: """
            With --ocpp: how many hours, from the current one, a Faulted or Unavailable connector \
            closes its socket (1...48, extended while the fault lasts; default 2).
            """)
    var faultHorizonHours: Int?

    func validate() throws {
        guard ocpp else {
            let given = [
                passwords.map { _ in "--ocpp-passwords" }, reserveLeadMinutes.map { _ in "--ocpp-reserve-lead" },
                faultHorizonHours.map { _ in "--ocpp-fault-horizon" },
            ].compactMap { $0 }
            if let first = given.first { throw ValidationError("\(first) is a setting of --ocpp, which is not given") }
            return
        }
        guard passwords != nil else {
            throw ValidationError("--ocpp needs --ocpp-passwords FILE (a JSON object: station id → password)")
        }
        if let reserveLeadMinutes, !(0...1_440).contains(reserveLeadMinutes) {
            throw ValidationError("--ocpp-reserve-lead must be 0...1440 minutes, not \(reserveLeadMinutes)")
        }
        if let faultHorizonHours, !(1...48).contains(faultHorizonHours) {
            throw ValidationError("--ocpp-fault-horizon must be 1...48 hours, not \(faultHorizonHours)")
        }
    }
}
