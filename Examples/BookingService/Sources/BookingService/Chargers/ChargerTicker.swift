import ServiceLifecycle

/// Tells the bridge, about once a second, that time passed (``ChargerLinks/tick()``): bookings
/// entering their lead are sent as ReserveNow, changed ones cancelled, faults extended. A
/// ServiceLifecycle `Service` in the service group: it starts with the server and stops, at a
/// graceful shutdown, after the server and before the store.
struct ChargerTicker: Service {
    let links: ChargerLinks
    var interval: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await links.tick()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
