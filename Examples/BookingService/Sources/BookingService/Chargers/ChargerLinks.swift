import Foundation
import Logging
import NIOWebSocket
import SlotScheduler
import SlotSchedulerOCPP

/// The open charge point connections, at most one per station, and the only caller of the
/// bridge: each connection's messages, its opening and closing, and the ticks go through here,
/// and what the bridge answers goes out on the station's current connection.
actor ChargerLinks {
    let bridge: ChargerBridge
    let logger: Logger
    /// The clock, read at the edge only (as the routes read it).
    let now: @Sendable () -> Instant
    private var current: [StationID: ChargerLink] = [:]
    private var opened: UInt64 = 0

    init(bridge: ChargerBridge, logger: Logger, now: @escaping @Sendable () -> Instant = { Instant(Date()) }) {
        self.bridge = bridge
        self.logger = logger
        self.now = now
    }

    /// A station connected: it becomes the station's connection (an earlier one is closed), and
    /// the bridge's first frames are queued on it.
    func open(_ station: StationID, sending queue: ChargerLink.Queue) async -> ChargerLink {
        opened += 1
        let link = ChargerLink(id: opened, station: station, queue: queue)
        if let earlier = current.updateValue(link, forKey: station) {
            logger.notice(
                "charger connection replaced by a newer one",
                metadata: ["station": "\(station)", "connection": "\(earlier.id)", "newer": "\(link.id)"])
            earlier.close(.policyViolation, "replaced by a newer connection of \(station)")
        }
        logger.info("charger connected", metadata: ["station": "\(station)", "connection": "\(link.id)"])
        let frames = await bridge.connect(station, at: now())
        // A newer connection may have opened meanwhile: it was sent all of this itself.
        if current[station]?.id == link.id { link.send(frames) }
        return link
    }

    /// One text message of `link`: the bridge's answer and follow-up calls go back on it. A
    /// connection already replaced is not heard any more.
    func receive(_ text: String, on link: ChargerLink) async {
        guard current[link.station]?.id == link.id else { return }
        let frames = await bridge.receive(text, from: link.station, at: now())
        for case .error(let id, let code, let description) in frames {
            logger.notice(
                "bad OCPP message",
                metadata: [
                    "station": "\(link.station)", "id": "\(id)", "code": "\(code.rawValue)",
                    "error": "\(description)",
                ])
        }
        link.send(frames)
    }

    /// `link` ended. When it was its station's connection, the bridge forgets the station; a
    /// newer connection that opened while it did is connected again (what it was sent is
    /// sent again, which a charge point takes as the same reservations).
    func closed(_ link: ChargerLink) async {
        link.queue.finish()
        guard current[link.station]?.id == link.id else { return }
        current[link.station] = nil
        logger.info("charger disconnected", metadata: ["station": "\(link.station)", "connection": "\(link.id)"])
        await bridge.disconnect(link.station)
        if let newer = current[link.station] {
            newer.send(await bridge.connect(link.station, at: now()))
        }
    }

    /// Time passed: what the bridge sends (reservations entering their lead, cancellations),
    /// each on its station's connection.
    func tick() async {
        for (station, frame) in await bridge.tick(at: now()) {
            current[station]?.send([frame])
        }
    }
}

/// One charge point connection: its number, its station, and the queue its writer sends from.
struct ChargerLink: Sendable {
    let id: UInt64
    let station: StationID
    let queue: Queue

    enum Outgoing: Sendable {
        case text(String)
        case close(WebSocketErrorCode, reason: String)
    }

    /// What the connection's writer sends, in a queue of bounded length
    /// (``ChargerConnection/maxQueuedMessages``); what does not fit is not queued, and `overflow`
    /// tells the connection, which closes.
    struct Queue: Sendable {
        let outgoing: AsyncStream<Outgoing>.Continuation
        let overflow: AsyncStream<Void>.Continuation

        func put(_ item: Outgoing) {
            if case .dropped = outgoing.yield(item) { overflow.yield(()) }
        }

        func finish() {
            outgoing.finish()
            overflow.finish()
        }
    }

    func send(_ frames: [OCPPFrame]) {
        for frame in frames { queue.put(.text(frame.text)) }
    }

    func close(_ code: WebSocketErrorCode, _ reason: String) {
        queue.put(.close(code, reason: reason))
        queue.outgoing.finish()
    }
}
