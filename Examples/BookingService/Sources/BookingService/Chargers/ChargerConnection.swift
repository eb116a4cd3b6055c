import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import SlotScheduler

/// One charge point's WebSocket, once upgraded: its text messages go to the bridge (through
/// ``ChargerLinks``) one at a time, in order; what the bridge sends, answers and calls of the
/// ticks alike, is written from the connection's queue by a writer of its own, so a station that
/// reads slowly holds up nobody else.
///
/// A binary message is not OCPP-J: the connection is closed (1003). A message over
/// ``maxMessageBytes`` is closed by the WebSocket layer (1009) before it is read whole. A station
/// that reads none of what it is sent is closed once ``maxQueuedMessages`` wait for it: before,
/// one that kept calling and never read kept every answer in memory, without end, and its
/// connection open.
struct ChargerConnection: Sendable {
    /// The largest message read (OCPP's own messages are a few KiB).
    static let maxMessageBytes = 64 << 10
    /// The most messages queued for a station that has not read them. A charge point waits for
    /// each answer before its next call (OCPP-J allows one call in flight), so an honest one
    /// has a few queued at most; the ticks add one a booking.
    static let maxQueuedMessages = 256

    let station: StationID
    let links: ChargerLinks
    let logger: Logger

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (queue, outgoing) = AsyncStream.makeStream(
            of: ChargerLink.Outgoing.self, bufferingPolicy: .bufferingOldest(Self.maxQueuedMessages))
        let (overflows, overflow) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let link = await links.open(station, sending: ChargerLink.Queue(outgoing: outgoing, overflow: overflow))
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await read(inbound, outbound: outbound, link: link) }
                group.addTask { try await write(queue, to: outbound) }
                group.addTask { await unread(overflows) }
                // Any of them ending ends the connection: the station closed, it was replaced,
                // or it reads nothing.
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await links.closed(link)
            logger.notice("charger connection failed", metadata: ["station": "\(station)", "error": "\(error)"])
            throw error
        }
        await links.closed(link)
    }

    private func read(_ inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, link: ChargerLink)
        async throws
    {
        for try await message in inbound.messages(maxSize: Self.maxMessageBytes) {
            switch message {
            case .text(let text):
                await links.receive(text, on: link)
            case .binary(let bytes):
                logger.notice(
                    "binary message from a charger: closing",
                    metadata: ["station": "\(station)", "bytes": "\(bytes.readableBytes)"])
                try await outbound.close(.unacceptableData, reason: "OCPP-J messages are text")
                return
            }
        }
    }

    /// Returns when the queue overflowed: the station reads none of what it is sent.
    private func unread(_ overflows: AsyncStream<Void>) async {
        for await _ in overflows {
            logger.notice(
                "charger reads none of its messages: closing",
                metadata: ["station": "\(station)", "queued": "\(Self.maxQueuedMessages)"])
            return
        }
    }

    private func write(_ queue: AsyncStream<ChargerLink.Outgoing>, to outbound: WebSocketOutboundWriter) async throws {
        for await item in queue {
            switch item {
            case .text(let text):
                try await outbound.write(.text(text))
            case .close(let code, let reason):
                try await outbound.close(code, reason: reason)
                return
            }
        }
    }
}
