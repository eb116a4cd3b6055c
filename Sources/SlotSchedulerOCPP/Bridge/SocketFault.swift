import SlotScheduler

/// A connector out of service (`StatusNotification` `Faulted` or `Unavailable`) and the hours
/// it closes: from the current hour up to the fault horizon, extended while it lasts; `Available`
/// reopens the closed hours that have not started. The one statement of that rule: the bridge
/// applies its changes to a store, and the simulator compiles a scenario's `stationEvents` into
/// them.
///
/// Hours are closed by setting the socket's hours on a date to its regular hours less the closed
/// ones (an operator's own change of that socket's hours on those dates is replaced).
public struct SocketFault: Hashable, Sendable {
    public let station: StationID
    public let socket: SocketID
    /// The hours closed so far, by date.
    public private(set) var closed: [LocalDate: HourSet] = [:]
    /// Hours overlapping `[start of fault, closedUntil)` are closed.
    public private(set) var closedUntil: Instant

    public init(station: StationID, socket: SocketID, at now: Instant) {
        self.station = station
        self.socket = socket
        self.closedUntil = now
    }

    /// One date's change: close `hours` (all the fault's closed hours on `date` once made).
    public struct Closure: Hashable, Sendable {
        public var date: LocalDate
        public var hours: HourSet
        public var change: AvailabilityChange
    }

    /// The end of the span a fault at `now` closes: the current hour and the next
    /// `horizonHours − 1` are those overlapping `[now, end)`.
    public static func horizonEnd(at now: Instant, horizonHours: Int) -> Instant {
        now.offset(by: Int64(max(1, horizonHours) - 1) * Booking.durationSeconds + 1)
    }

    /// The changes that close the hours overlapping `[now, horizon end)` not closed yet, by date;
    /// empty when there are none. Apply them with `.displace`, then ``record(_:)`` each one made.
    public func closing(at now: Instant, horizonHours: Int, catalog: Catalog) -> [Closure] {
        let until = Self.horizonEnd(at: now, horizonHours: horizonHours)
        guard until > closedUntil, let info = catalog.station(station),
            let entry = info.sockets.first(where: { $0.id == socket })
        else { return [] }
        let regular = entry.openingHours ?? info.openingHours
        return hours(overlapping: now..<until, catalog: catalog).compactMap { date, affected in
            let before = closed[date] ?? .closed
            guard !affected.subtracting(before).isEmpty else { return nil }
            let after = before.union(affected)
            return Closure(
                date: date, hours: after,
                change: .setHours(regular.subtracting(after), station, socket: socket, on: date))
        }
    }

    /// Notes a closure as made.
    public mutating func record(_ closure: Closure) {
        closed[closure.date] = closure.hours
    }

    /// Notes that every hour overlapping `[…, horizon end at now)` is closed (or was tried).
    public mutating func extend(at now: Instant, horizonHours: Int) {
        closedUntil = max(closedUntil, Self.horizonEnd(at: now, horizonHours: horizonHours))
    }

    /// The closed hours that have started at `now`, by date: what stays closed after `Available`
    /// (a driver may have been sent elsewhere).
    public func started(at now: Instant, catalog: Catalog) -> [LocalDate: HourSet] {
        var result: [LocalDate: HourSet] = [:]
        for (date, hours) in closed {
            let started = hours.filter { hour in
                guard let start = start(of: hour, on: date, catalog: catalog) else { return true }
                return start <= now
            }
            result[date] = (try? HourSet(started)) ?? .closed
        }
        return result
    }

    /// The changes that reopen the closed hours that have not started at `now`, by date.
    public func reopening(at now: Instant, catalog: Catalog) -> [AvailabilityChange] {
        guard let info = catalog.station(station), let entry = info.sockets.first(where: { $0.id == socket }) else {
            return []
        }
        let regular = entry.openingHours ?? info.openingHours
        let started = started(at: now, catalog: catalog)
        return closed.keys.sorted().map { date in
            let stillClosed = started[date] ?? .closed
            return stillClosed.isEmpty
                ? .reopen(station, socket: socket, on: date)
                : .setHours(regular.subtracting(stillClosed), station, socket: socket, on: date)
        }
    }

    /// The socket's regular hours that overlap `span`, by date (each hour's start from the
    /// catalog, so DST days come out right; a nonexistent hour is none).
    func hours(overlapping span: Range<Instant>, catalog: Catalog) -> [(LocalDate, HourSet)] {
        guard let info = catalog.station(station), let entry = info.sockets.first(where: { $0.id == socket }),
            let first = catalog.localDate(of: station, at: span.lowerBound),
            let last = catalog.localDate(of: station, at: span.upperBound)
        else { return [] }
        let regular = entry.openingHours ?? info.openingHours
        var result: [(LocalDate, HourSet)] = []
        for day in (Int64(first.dayNumber) - 1)...(Int64(last.dayNumber) + 1) {
            guard let dayNumber = Int32(exactly: day) else { continue }
            let date = LocalDate(dayNumber: dayNumber)
            let hours = regular.filter { hour in
                guard let start = start(of: hour, on: date, catalog: catalog) else { return false }
                return start.offset(by: Booking.durationSeconds) > span.lowerBound && start < span.upperBound
            }
            if !hours.isEmpty, let set = try? HourSet(hours) { result.append((date, set)) }
        }
        return result
    }

    private func start(of hour: Int, on date: LocalDate, catalog: Catalog) -> Instant? {
        let slot = Slot(station: station, socket: socket, date: date, hour: hour)
        guard let ref = try? catalog.resolve(slot) else { return nil }
        return catalog.start(of: ref)
    }
}

extension HourSet {
    func union(_ other: HourSet) -> HourSet { HourSet(mask: mask | other.mask) }
    func subtracting(_ other: HourSet) -> HourSet { HourSet(mask: mask & ~other.mask) }
}
