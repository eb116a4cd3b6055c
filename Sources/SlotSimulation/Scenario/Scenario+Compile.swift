import SlotScheduler

/// The last part of ``Scenario/prepare(file:)``: the checked scenario compiled into cells, one
/// function per table.
extension Scenario {
    /// Every cell's slot and start (`Int64.min` for a local time that does not exist), by index,
    /// not by id: a search of the station's sockets per cell would make a station of many sockets
    /// quadratic.
    static func slotTable(
        _ catalog: Catalog, firstDay: Int32, days: Int, cells: Int, file: String
    ) throws(ScenarioError) -> (refs: [SlotRef], starts: [Int64]) {
        var refs: [SlotRef] = []
        refs.reserveCapacity(cells)
        var starts: [Int64] = []
        starts.reserveCapacity(cells)
        for (stationIndex, station) in catalog.stations.enumerated() {
            for socket in station.sockets.indices {
                for d in 0..<days {
                    for hour in 0..<24 {
                        guard
                            let ref = catalog.slot(
                                station: stationIndex, socket: socket, date: LocalDate(dayNumber: firstDay + Int32(d)),
                                hour: hour)
                        else {
                            throw ScenarioError(
                                file: file, path: "stations", value: station.id.rawValue,
                                expected: "stations the catalog accepts")
                        }
                        refs.append(ref)
                        starts.append(catalog.start(of: ref)?.secondsSinceEpoch ?? Int64.min)
                    }
                }
            }
        }
        return (refs, starts)
    }

    /// The workload's candidate cells (every socket, date and hour it aims at, in that order) and
    /// its hot ones: open, existing local times, chosen by the seed.
    func workloadCells(_ grid: CellGrid, starts: [Int64], socketCount: Int) -> (candidates: [Int32], hot: [Int32]) {
        var candidates: [Int32] = []
        var hot: [Int32] = []
        var rng = SplitMix64(seed: seed ^ 0x5EED_CE11)
        guard let w = workload else { return ([], []) }
        let hours = Array(w.hours ?? .allDay)
        let first = w.dates.from.dayNumber - grid.firstDay
        candidates.reserveCapacity(socketCount * w.dates.days * hours.count)
        for socket in 0..<Int32(socketCount) {
            for d in first..<(first + Int32(w.dates.days)) {
                for h in hours { candidates.append(grid.cell(socket: socket, dayOffset: d, hour: Int32(h))) }
            }
        }
        let wanted = w.hotness?.slots ?? 0
        var picked = Set<Int32>()
        var tries = 0
        while hot.count < wanted && tries < wanted * 100 + 1000 {
            tries += 1
            let c = candidates[rng.below(candidates.count)]
            if starts[Int(c)] == Int64.min || picked.contains(c) { continue }
            picked.insert(c)
            hot.append(c)
        }
        while hot.count < wanted {
            hot.append(candidates[hot.count % candidates.count])
        }
        return (candidates, hot)
    }

    /// The scripted steps with their times, cells, cancel targets (by label) and changes.
    func compiledSteps(
        _ steps: [Step], times: [Int64], labels: [String: Int], catalog: Catalog, grid: CellGrid
    ) -> [PreparedScenario.CompiledStep] {
        var compiled: [PreparedScenario.CompiledStep] = []
        compiled.reserveCapacity(steps.count)
        for (i, step) in steps.enumerated() {
            var c = PreparedScenario.CompiledStep(
                step: step, now: times[i], cell: -1, user: step.user ?? 0, target: -1, change: nil)
            switch step.op {
            case .reserve, .query, .hold, .confirm, .releaseHold, .reschedule:
                if step.op == .reschedule { c.target = step.booking.flatMap { labels[$0] } ?? -1 }
                if let station = step.station, let socket = step.socket, let date = step.date, let hour = step.hour,
                    let ref = try? catalog.resolve(Slot(station: station, socket: socket, date: date, hour: hour))
                {
                    c.cell = grid.cell(socket: ref.socket, dayOffset: ref.day &- grid.firstDay, hour: ref.hour)
                }
            case .cancel, .checkIn, .checkOut:
                c.target = step.booking.flatMap { labels[$0] } ?? -1
            case .anySocket: break
            case .changeAvailability:
                if let station = step.station, let date = step.date {
                    c.change = AvailabilityChange(station: station, socket: step.socket, date: date, hours: step.hours)
                }
            }
            compiled.append(c)
        }
        return compiled
    }
}
