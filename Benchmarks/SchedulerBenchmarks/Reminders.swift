import Benchmark
import SlotScheduler

/// Thousands of `remindersDue` calls per second.
let queriesPerSecond = BenchmarkMetric.custom("k queries/s", polarity: .prefersLarger, useScalingFactor: false)

/// A ledger holding `history` bookings with reminders on days 0..<200 of the standard stations,
/// and the same 10,000 on day 250; and the 1,440 one-minute windows of day 250's reminders.
func reminderLedger(history: Int) throws -> (Ledger, [Range<Instant>]) {
    let stations = (0..<Workload.stationCount).map { s in
        Station(
            id: StationID("ST-\(s)"), name: "Station \(s)", city: "City \(s % 20)", timeZone: "Europe/London",
            sockets: (0..<Workload.socketsPerStation).map {
                Socket(id: SocketID("\($0)"), connector: .type2, powerKW: 22)
            })
    }
    let first = try LocalDate(year: 2026, month: 1, day: 1)
    var ledger = try Ledger(
        rules: Rules(catalog: Catalog(stations), policy: Policy(maxUpcomingBookings: 1_000)), journaling: false)
    let now = Instant.utc(first.adding(days: -1), hour: 0)
    var rng = SplitMix64(seed: 11)
    func book(days: Range<Int>) {
        let slot = Slot(
            station: StationID("ST-\(Int(rng.next() % UInt64(Workload.stationCount)))"),
            socket: SocketID("\(Int(rng.next() % UInt64(Workload.socketsPerStation)))"),
            date: first.adding(days: days.lowerBound + Int(rng.next() % UInt64(days.count))),
            hour: Int(rng.next() % 24))
        let request = ReservationRequest(
            slot: slot, user: UserID(rng.next() % 100_000), reminder: .seconds(Int64(rng.next() % 7_200)))
        _ = try? ledger.reserve(request, at: now)
    }
    for _ in 0..<history { book(days: 0..<200) }
    for _ in 0..<10_000 { book(days: 250..<251) }
    let day = Instant.utc(first.adding(days: 250), hour: 0)
    return (ledger, (0..<1_440).map { (day + .seconds($0 * 60))..<(day + .seconds($0 * 60 + 60)) })
}

/// `remindersDue` for each minute of a day with 10,000 bookings, behind no history and behind
/// 1 M bookings on earlier dates: with the index by fire hour the two run at the same rate (a
/// walk of every booking held made the second about 100 times slower).
func reminderBenchmarks() {
    for history in [0, 1_000_000] {
        let state = ReminderState()
        Benchmark(
            "Ledger.remindersDue, one-minute windows, \(history == 0 ? "no" : "1 M bookings of") history",
            configuration: .init(
                metrics: [.wallClock, queriesPerSecond], timeUnits: .milliseconds, maxDuration: .seconds(60),
                maxIterations: 10)
        ) { benchmark in
            if state.made == nil { state.made = try? reminderLedger(history: history) }
            guard let (ledger, windows) = state.made else { return }
            var found = 0
            let clock = ContinuousClock()
            benchmark.startMeasurement()
            let start = clock.now
            for window in windows { found += ledger.remindersDue(in: window).count }
            let elapsed = clock.now - start
            benchmark.stopMeasurement()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            benchmark.measurement(queriesPerSecond, Int(Double(windows.count) / max(seconds, 1e-9) / 1_000))
            blackHole(found)
        }
    }
}

/// The ledger a reminder benchmark builds once, outside its measurement.
final class ReminderState: @unchecked Sendable {
    // `@unchecked Sendable`: the benchmark runner calls a benchmark's closure on one thread at a time.
    var made: (Ledger, [Range<Instant>])?
}
