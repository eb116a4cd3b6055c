import SlotScheduler
import SlotSchedulerOCPP

/// A scenario's timeline compiled: its availability changes, and its chargers' faults turned into
/// the changes the OCPP bridge would make (``SocketFault`` states the rule once for both).
extension Scenario {
    /// The timeline's changes and the station events' in operation order (ties: the timeline's
    /// in the file's order, then the events'), and the cells faults leave closed at the end.
    func compiledTimeline(workloadStart: Int64, catalog: Catalog, grid: CellGrid)
        -> (changes: [PreparedScenario.CompiledChange], faulted: [Int32])
    {
        var ordered: [(op: Int, order: Int, change: PreparedScenario.CompiledChange)] = []
        for (i, timed) in (timeline ?? []).enumerated() {
            let change = AvailabilityChange(
                station: timed.station, socket: timed.socket, date: timed.date, hours: timed.hours)
            ordered.append(
                (
                    timed.atOperation, i,
                    .init(atOperation: timed.atOperation, change: change, rule: timed.onBookings ?? .displace)
                ))
        }
        var faults = FaultPlayback(scenario: self, workloadStart: workloadStart, catalog: catalog, grid: grid)
        for change in faults.play() {
            ordered.append((change.atOperation, ordered.count, change))
        }
        ordered.sort { ($0.op, $0.order) < ($1.op, $1.order) }
        return (ordered.map(\.change), faults.closedCells())
    }
}

/// Plays a scenario's `stationEvents` on the workload's clock, as the bridge would: a fault
/// closes its hours when reported and one more hour each time the clock reaches the next hour's
/// start less the horizon, until `Available` or the end of the run.
struct FaultPlayback {
    let scenario: Scenario
    let workloadStart: Int64
    let catalog: Catalog
    let grid: CellGrid
    let perStep: Int64
    let operations: Int
    /// The faults in force, with their horizons, in the order reported.
    private var active: [(fault: SocketFault, horizon: Int)] = []
    /// The hours faults closed, by (station, socket): kept after `Available` for the started ones.
    private var closed: [(station: StationID, socket: SocketID, hours: [LocalDate: HourSet])] = []

    init(scenario: Scenario, workloadStart: Int64, catalog: Catalog, grid: CellGrid) {
        self.scenario = scenario
        self.workloadStart = workloadStart
        self.catalog = catalog
        self.grid = grid
        self.perStep = Int64(max(1, scenario.clock.operationsPerStep ?? 1))
        self.operations = scenario.workload?.operations ?? 0
    }

    /// The workload's clock at operation `op`, as the runs keep it.
    func time(_ op: Int) -> Int64 { workloadStart &+ scenario.clock.stepSeconds &* (Int64(op) / perStep) }

    /// The first operation whose time is at least `t`, if the run has one.
    func firstOperation(reaching t: Int64) -> Int? {
        if t <= workloadStart { return 0 }
        let step = scenario.clock.stepSeconds
        guard step > 0 else { return nil }
        let (gap, o1) = t.subtractingReportingOverflow(workloadStart)
        let steps = gap / step + (gap % step == 0 ? 0 : 1)
        let (op, o2) = steps.multipliedReportingOverflow(by: perStep)
        guard !o1, !o2, op <= Int64(operations) else { return nil }
        return Int(op)
    }

    /// The changes, each at its operation.
    mutating func play() -> [PreparedScenario.CompiledChange] {
        let events = (scenario.stationEvents ?? []).enumerated().sorted {
            ($0.element.atOperation, $0.offset) < ($1.element.atOperation, $1.offset)
        }.map(\.element)
        var changes: [PreparedScenario.CompiledChange] = []
        for event in events {
            changes += extend(before: event.atOperation)
            let now = Instant(secondsSinceEpoch: time(event.atOperation))
            let index = active.firstIndex { $0.fault.station == event.station && $0.fault.socket == event.socket }
            switch (event.status, index) {
            case (.faulted, nil), (.unavailable, nil):
                let fault = SocketFault(station: event.station, socket: event.socket, at: now)
                active.append((fault, event.faultHorizonHours ?? ChargerTiming().faultHorizonHours))
                changes += close(active.count - 1, at: event.atOperation)
            case (.available, let i?):
                let (fault, _) = active.remove(at: i)
                changes += fault.reopening(at: now, catalog: catalog).filter(inDomain).map {
                    .init(atOperation: event.atOperation, change: $0, rule: .displace)
                }
                // What stays closed: the hours that had started.
                closed.append((fault.station, fault.socket, fault.started(at: now, catalog: catalog)))
            default:
                break
            }
        }
        changes += extend(before: operations + 1)
        for (fault, _) in active { closed.append((fault.station, fault.socket, fault.closed)) }
        return changes
    }

    /// Extends every fault in force at each hour it reaches before operation `limit`.
    private mutating func extend(before limit: Int) -> [PreparedScenario.CompiledChange] {
        var changes: [PreparedScenario.CompiledChange] = []
        for i in active.indices {
            var from = active[i].fault.closedUntil.secondsSinceEpoch
            while true {
                // The next hour enters the horizon once the clock is `horizon − 1` hours before it.
                let lead = Int64(active[i].horizon - 1) * Booking.durationSeconds
                let nextHour = (from - 1) - Self.modulo(from - 1, 3_600) + 3_600
                guard let op = firstOperation(reaching: nextHour - lead), op < limit, op <= operations else { break }
                changes += close(i, at: op)
                from = max(active[i].fault.closedUntil.secondsSinceEpoch, from + 1)
            }
        }
        return changes
    }

    private mutating func close(_ i: Int, at op: Int) -> [PreparedScenario.CompiledChange] {
        let now = Instant(secondsSinceEpoch: time(op))
        let closures = active[i].fault.closing(at: now, horizonHours: active[i].horizon, catalog: catalog)
            .filter { inDomain($0.change) }
        for closure in closures { active[i].fault.record(closure) }
        active[i].fault.extend(at: now, horizonHours: active[i].horizon)
        return closures.map { .init(atOperation: op, change: $0.change, rule: .displace) }
    }

    private func inDomain(_ change: AvailabilityChange) -> Bool {
        let offset = Int64(change.date.dayNumber) - Int64(grid.firstDay)
        return offset >= 0 && offset < Int64(grid.days)
    }

    /// The cells the faults leave closed at the end, ascending.
    func closedCells() -> [Int32] {
        var cells: [Int32] = []
        for entry in closed {
            for (date, hours) in entry.hours {
                for hour in hours {
                    let slot = Slot(station: entry.station, socket: entry.socket, date: date, hour: hour)
                    guard let ref = try? catalog.resolve(slot) else { continue }
                    cells.append(
                        grid.cell(socket: ref.socket, dayOffset: date.dayNumber &- grid.firstDay, hour: Int32(hour)))
                }
            }
        }
        return Array(Set(cells)).sorted()
    }

    static func modulo(_ a: Int64, _ b: Int64) -> Int64 { ((a % b) + b) % b }
}
