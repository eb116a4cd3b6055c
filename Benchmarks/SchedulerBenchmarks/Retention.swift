import Benchmark
import SlotScheduler

#if canImport(Glibc)
import Glibc
#endif

/// Resident bytes after glibc's `malloc_trim(0)` has given the free pages of its heap back to
/// the system (found with `dlsym`; the Glibc module does not import `malloc.h`): what the
/// ledger holds, without what the allocator keeps resident after frees.
func trimmedResidentBytes() -> Int {
    #if canImport(Glibc)
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    #endif
    return residentBytes()
}

/// A service that runs for `days` days with a 30-day rolling horizon and releases, every day,
/// the dates before yesterday (``Ledger/releaseDays(before:at:)``): each day 20,000 attempts
/// on random slots of the next 30 days by 100,000 users, 2,000 of them full requests with a
/// request id. Returns the resident bytes the ledger added (`/proc/self/statm`), and the same
/// after `malloc_trim` (which does not count what the allocator keeps after frees).
///
/// Run for 30 and for 365 days in the same benchmark run: retention must keep the second
/// within 1.2x of the first. With `farAhead`, the horizon is unlimited (the attempts still aim
/// at the next 30 days) and the first booking is for a date two years ahead: it must not keep
/// the records made after it.
func retentionRun(days: Int, farAhead: Bool = false) throws -> (bytes: Int, allocated: Int, bookings: Int) {
    // The standard workload's stations, without its 10 M attempts (which would dwarf the ledger).
    let stations = (0..<Workload.stationCount).map { s in
        Station(
            id: StationID("ST-\(s)"), name: "Station \(s)", city: "City \(s % 20)", timeZone: "Europe/London",
            sockets: (0..<Workload.socketsPerStation).map {
                Socket(id: SocketID("\($0)"), connector: .type2, powerKW: 22)
            })
    }
    let rules = try Rules(
        catalog: try Catalog(stations),
        policy: Policy(maxUpcomingBookings: Workload.limit, horizon: farAhead ? .unlimited : .rollingDays(30)))
    let catalog = rules.catalog
    let first = try LocalDate(year: 2026, month: 1, day: 1)
    var rng = SplitMix64(seed: 7)
    let before = residentBytes()
    let trimmedBefore = trimmedResidentBytes()
    var ledger = Ledger(rules: rules, journaling: false, expectedUsers: 100_000)
    if farAhead {
        let slot = Slot(station: "ST-0", socket: "0", date: first.adding(days: 730), hour: 12)
        _ = try ledger.reserve(ReservationRequest(slot: slot, user: 100_000), at: Instant.utc(first, hour: 6))
    }
    for d in 0..<days {
        let now = Instant.utc(first.adding(days: d), hour: 6)
        for k in 0..<20_000 {
            let slot = Slot(
                station: StationID("ST-\(Int(rng.next() % UInt64(Workload.stationCount)))"),
                socket: SocketID("\(Int(rng.next() % UInt64(Workload.socketsPerStation)))"),
                date: first.adding(days: d + 1 + Int(rng.next() % 30)), hour: Int(rng.next() % 24))
            let user = UserID(rng.next() % 100_000)
            if k % 10 == 0 {
                let request = ReservationRequest(slot: slot, user: user, requestID: RequestID("req-\(d)-\(k)"))
                _ = try? ledger.reserve(request, at: now)
            } else {
                _ = ledger.attempt(try catalog.resolve(slot), for: user, at: now)
            }
        }
        try ledger.releaseDays(before: first.adding(days: d - 1), at: now)
    }
    let bytes = residentBytes() - before
    let allocated = trimmedResidentBytes() - trimmedBefore
    blackHole(ledger)
    return (bytes, allocated, ledger.activeBookingCount)
}

let residentMetric = BenchmarkMetric.custom("resident bytes added", polarity: .prefersSmaller, useScalingFactor: false)
let allocatedMetric = BenchmarkMetric.custom(
    "resident bytes added, after malloc_trim", polarity: .prefersSmaller, useScalingFactor: false)
let heldMetric = BenchmarkMetric.custom("bookings held", polarity: .prefersSmaller, useScalingFactor: false)

func retentionBenchmarks() {
    for (days, farAhead) in [(30, false), (365, false), (30, true), (365, true)] {
        let horizon = farAhead ? "unlimited horizon, one booking 2 years ahead" : "30-day horizon"
        Benchmark(
            "Memory after \(days) days, \(horizon), retention on",
            configuration: .init(
                metrics: [.peakMemoryResident, residentMetric, allocatedMetric, heldMetric], timeUnits: .milliseconds,
                maxIterations: 1)
        ) { benchmark in
            do {
                let (bytes, allocated, held) = try retentionRun(days: days, farAhead: farAhead)
                benchmark.measurement(residentMetric, bytes)
                benchmark.measurement(allocatedMetric, allocated)
                benchmark.measurement(heldMetric, held)
            } catch {
                print("retention run failed: \(error)")
            }
        }
    }
}
