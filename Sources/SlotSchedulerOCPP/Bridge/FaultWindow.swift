import SlotScheduler

/// The hours a faulted connector closes: those of its socket from the current hour on, up to the
/// fault horizon. Kept so that `Available` reopens exactly the hours the fault closed and that
/// have not started.
struct FaultWindow: Hashable, Sendable {
    var socket: SocketID
    /// The hours closed, by date; each was open (in the socket's regular hours) before.
    var closed: [LocalDate: HourSet] = [:]
    /// The end of the last closed hour's span: the fault is extended once now + horizon passes it.
    var closedUntil: Instant

    /// The hours of `socket` at `station` that overlap `[from, until)`, by date, from its
    /// regular hours (each hour's start from the catalog, so DST days come out right).
    static func hours(
        of socket: Socket, at station: Station, catalog: Catalog, from: Instant, until: Instant
    ) -> [LocalDate: HourSet] {
        guard let today = catalog.localDate(of: station.id, at: from) else { return [:] }
        let regular = socket.openingHours ?? station.openingHours
        let days = Int32(clamping: (until.secondsSinceEpoch - from.secondsSinceEpoch) / 86_400 + 2)
        var result: [LocalDate: HourSet] = [:]
        for offset in -1...days {
            let date = LocalDate(dayNumber: today.dayNumber &+ offset)
            var hours: [Int] = []
            for hour in regular {
                let slot = Slot(station: station.id, socket: socket.id, date: date, hour: hour)
                guard let ref = try? catalog.resolve(slot), let start = catalog.start(of: ref) else { continue }
                let end = start.secondsSinceEpoch + Booking.durationSeconds
                if end > from.secondsSinceEpoch, start.secondsSinceEpoch < until.secondsSinceEpoch {
                    hours.append(hour)
                }
            }
            if !hours.isEmpty, let set = try? HourSet(hours) { result[date] = set }
        }
        return result
    }
}

extension HourSet {
    func union(_ other: HourSet) -> HourSet { HourSet(mask: mask | other.mask) }
    func subtracting(_ other: HourSet) -> HourSet { HourSet(mask: mask & ~other.mask) }
}
