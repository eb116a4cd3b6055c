import SlotScheduler

/// The open hours of each socket-day over a threads-mode run: the scenario's overrides, then
/// every accepted availability change with the times it was invoked and completed.
///
/// Changes run concurrently with reservations, so the hours a reservation saw are not one
/// value but a set: those of any change that could have been the last one before it.
struct AvailabilityHistory {
    struct Change {
        var invoke: Int64
        var complete: Int64
        var mask: UInt32
    }
    /// Open hours at the start, per socket-day (``CellGrid/socketDay(ofCell:)``).
    let initial: [UInt32]
    /// Accepted changes per socket-day, in history order.
    let changes: [Int: [Change]]
    /// Changes whose outcome is unknown (they may have been made), per socket-day.
    let unknown: [Int: [Change]]
    let grid: CellGrid

    init(_ p: PreparedScenario, history: CompactHistory) {
        grid = p.grid
        let hours = SocketDayHours(p)
        var initial: [UInt32] = []
        initial.reserveCapacity(hours.regular.count * p.days)
        for mask in hours.regular { initial.append(contentsOf: repeatElement(mask, count: p.days)) }
        for change in p.scenario.overrides ?? [] {
            for (socketDay, mask) in hours.openHours(after: change) { initial[socketDay] = mask }
        }
        self.initial = initial
        var changes: [Int: [Change]] = [:]
        var unknown: [Int: [Change]] = [:]
        for op in history where op.kind == .change && (op.outcome == -1 || op.outcome == -2) {
            guard let change = op.change else { continue }
            for (socketDay, mask) in hours.openHours(after: change) {
                let c = Change(invoke: op.invoke, complete: op.complete, mask: mask)
                if op.outcome == -1 {
                    changes[socketDay, default: []].append(c)
                } else {
                    unknown[socketDay, default: []].append(c)
                }
            }
        }
        self.changes = changes
        self.unknown = unknown
    }

    /// Whether `cell`'s hour could have been open when `op` ran: open in the hours set by some
    /// change that could be the last one ordered before `op`, or at the start if no change was
    /// definitely before it.
    ///
    /// - Complexity: O(*k*²) in the changes of the cell's socket-day.
    func couldBeOpen(cell: Int32, during op: TimedOperation) -> Bool {
        let socketDay = Int(grid.socketDay(ofCell: cell))
        let bit = UInt32(1) << UInt32(grid.hour(ofCell: cell))
        let list = changes[socketDay] ?? []
        let before = list.filter { $0.complete < op.invoke }
        if before.isEmpty, initial[socketDay] & bit != 0 { return true }
        for (i, c) in list.enumerated() where c.invoke < op.complete {
            // A change definitely followed by another one definitely before `op` cannot be last.
            let superseded =
                c.complete < op.invoke
                && list.indices.contains { j in j != i && list[j].invoke > c.complete && list[j].complete < op.invoke }
            if !superseded, c.mask & bit != 0 { return true }
        }
        return false
    }

    /// Whether `cell`'s hour was open for certain whenever `op` ran: open in the hours set by
    /// every change, accepted or of unknown outcome, that could be the last one ordered before
    /// any moment of `op`, and at the start if no accepted change was definitely before it.
    ///
    /// - Complexity: O(*k*²) in the changes of the cell's socket-day.
    func certainlyOpen(cell: Int32, during op: TimedOperation) -> Bool {
        let socketDay = Int(grid.socketDay(ofCell: cell))
        let bit = UInt32(1) << UInt32(grid.hour(ofCell: cell))
        let list = changes[socketDay] ?? []
        if !list.contains(where: { $0.complete < op.invoke }), initial[socketDay] & bit == 0 { return false }
        for c in list + (unknown[socketDay] ?? []) where c.invoke <= op.complete && c.mask & bit == 0 {
            // Only an accepted change definitely between it and `op` rules a closing change out.
            let superseded =
                c.complete < op.invoke && list.contains { $0.invoke > c.complete && $0.complete < op.invoke }
            if !superseded { return false }
        }
        return true
    }
}

/// The open hours an availability change gives the socket-days it sets, on the scenario's cells.
struct SocketDayHours {
    /// Regular open hours per flat socket.
    let regular: [UInt32]
    /// First flat socket of each station.
    let socketBase: [Int32]
    let stationIndex: [StationID: Int]
    let socketIndex: [[SocketID: Int]]
    let catalog: Catalog
    let grid: CellGrid

    init(_ p: PreparedScenario) {
        catalog = p.rules.catalog
        grid = p.grid
        var regular: [UInt32] = []
        var base: [Int32] = []
        for station in catalog.stations {
            base.append(Int32(regular.count))
            for socket in station.sockets { regular.append((socket.openingHours ?? station.openingHours).mask) }
        }
        self.regular = regular
        socketBase = base
        stationIndex = Dictionary(
            catalog.stations.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        socketIndex = catalog.stations.map { station in
            Dictionary(station.sockets.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The flat sockets a change targets.
    func sockets(of change: AvailabilityChange) -> [Int32] {
        guard let station = stationIndex[change.station] else { return [] }
        let base = socketBase[station]
        if let socket = change.socket {
            return socketIndex[station][socket].map { [base + Int32($0)] } ?? []
        }
        return catalog.stations[station].sockets.indices.map { base + Int32($0) }
    }

    /// The socket-days `change` sets, with the open hours it gives each; empty outside the
    /// scenario's dates.
    func openHours(after change: AvailabilityChange) -> [(socketDay: Int, mask: UInt32)] {
        let offset = change.date.dayNumber &- grid.firstDay
        guard offset >= 0, offset < grid.days else { return [] }
        return sockets(of: change).map { socket in
            (Int(socket &* grid.days &+ offset), change.hours?.mask ?? regular[Int(socket)])
        }
    }
}
