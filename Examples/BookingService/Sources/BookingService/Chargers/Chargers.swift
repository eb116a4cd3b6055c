import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import SlotScheduler
import SlotSchedulerOCPP

/// `--ocpp`: the bridge between the bookings and the charge points, the connections, who may
/// open one, and the HTTP server that also upgrades `/ocpp/{stationId}` to a WebSocket.
struct Chargers: Sendable {
    let bridge: ChargerBridge
    let links: ChargerLinks
    let admission: ChargerAdmission

    /// The chargers `options` ask for (`nil` without `--ocpp`), over `service`, with the EVSE
    /// addresses the scenario file gives its sockets (`"ocpp": {"evseId", "connectorId"}`).
    static func make(_ options: ChargerOptions, scenario: String, service: any BookingService, logger: Logger)
        throws(ChargerSetupError) -> Chargers?
    {
        guard options.ocpp, let passwordsFile = options.passwords else { return nil }
        let catalog = service.rules.catalog
        let passwords = try StationPasswords.load(path: passwordsFile, catalog: catalog)
        let timing = ChargerTiming(
            reserveLead: .seconds(60 * (options.reserveLeadMinutes ?? 15)),
            faultHorizonHours: options.faultHorizonHours ?? 2)
        let bridge = ChargerBridge(
            service: service, timing: timing, evses: try evses(scenario: scenario, catalog: catalog))
        logger.info(
            "chargers: OCPP 2.0.1 at /ocpp/{stationId}",
            metadata: [
                "stations": "\(passwords.count)", "reserveLeadSeconds": "\(timing.reserveLeadSeconds)",
                "faultHorizonHours": "\(timing.faultHorizonHours)",
            ])
        return Chargers(
            bridge: bridge, links: ChargerLinks(bridge: bridge, logger: logger),
            admission: ChargerAdmission(passwords: passwords, catalog: catalog))
    }

    /// The sockets' EVSE addresses: the n-th socket of a station is EVSE n unless the scenario
    /// file's socket has an `ocpp` address.
    static func evses(scenario: String, catalog: Catalog) throws(ChargerSetupError) -> EVSEMap {
        guard let data = FileManager.default.contents(atPath: scenario) else {
            throw ChargerSetupError("\(scenario): cannot read the file")
        }
        do {
            return try EVSEMap(catalog: catalog, overrides: try EVSEMap.overrides(inCatalogJSON: data))
        } catch {
            throw ChargerSetupError("\(scenario): the sockets' ocpp addresses: \(error)")
        }
    }

    /// What runs in the service group: the ticks.
    var ticker: ChargerTicker { ChargerTicker(links: links) }

    /// Every HTTP connection's handlers around the service's own: first the end of the upgrade
    /// watch (which passes on a first request NIO kept from them, and hands the connection's place
    /// in the budget over to ``ConnectionShedding``), last the answer of a request not upgraded
    /// (as without `--ocpp`, or its refusal).
    func httpHandlers(around handlers: [any RemovableChannelHandler]) -> [any RemovableChannelHandler] {
        [UpgradeWatch.Decided.Placement()] + handlers + [UpgradeFallback(admission: admission)]
    }

    /// HTTP/1.1 as `http1` configures it, and WebSocket upgrades of `/ocpp/{stationId}`; a
    /// connection's first request head must be read within `headDeadline`, and every connection
    /// counts in `budget` from its opening (``UpgradeWatch``).
    func server(http1: HTTP1Channel.Configuration, headDeadline: TimeAmount, budget: ConnectionBudget)
        -> HTTPServerBuilder
    {
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: http1,
            ws: WebSocketServerConfiguration(
                maxFrameSize: ChargerConnection.maxMessageBytes, closeTimeout: .seconds(5), validateUTF8: true))
        return HTTPServerBuilder { responder in
            UpgradeGuardedChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: configuration,
                    shouldUpgrade: { request, channel, logger in
                        shouldUpgrade(request, remote: channel.remoteAddress, logger: logger)
                    }),
                headDeadline: headDeadline, budget: budget)
        }
    }

    /// The upgrade's decision: a connection of the station, with the subprotocol chosen, or a
    /// refusal (logged; ``UpgradeFallback`` gives its answer).
    func shouldUpgrade(_ request: HTTPRequest, remote: SocketAddress?, logger: Logger)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    {
        switch admission.decide(request) {
        case .refuse(let refusal):
            logger.notice(
                "WebSocket upgrade refused",
                metadata: [
                    "status": "\(refusal.status.code)", "why": "\(refusal)",
                    "remote": "\(remote.map { "\($0)" } ?? "?")",
                ])
            return .dontUpgrade
        case .accept(let station):
            let connection = ChargerConnection(station: station, links: links, logger: logger)
            return .upgrade([.secWebSocketProtocol: ChargerAdmission.subprotocol]) { inbound, outbound, _ in
                try await connection.run(inbound: inbound, outbound: outbound)
            }
        }
    }
}
