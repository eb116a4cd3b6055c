import Benchmark
import Dispatch
import SlotScheduler

#if canImport(Glibc)
import Glibc
#endif

/// Mutable state one benchmark carries from iteration to iteration.
///
/// `@unchecked Sendable`: the harness runs one benchmark's iterations one after another on one
/// thread, so the box is never touched concurrently; the threads inside an iteration only use
/// the `Sendable` scheduler it holds.
final class State: @unchecked Sendable {
    var ledger: Ledger?
    var scheduler: Scheduler?
    var floor: Floor?
    var cursor = 0
}

/// Resident memory of this process in bytes (Linux `/proc/self/statm`).
func residentBytes() -> Int {
    #if canImport(Glibc)
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
    let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}

let attemptsPerIteration = 1_000_000

/// Thousands of reservation attempts per second in one iteration, timed around the loop only.
let attemptsPerSecond = BenchmarkMetric.custom("k attempts/s", polarity: .prefersLarger, useScalingFactor: false)

/// Thousands of attempts per second of CPU time the process used in one iteration (all its
/// threads together). On a machine shared with other builds a thread waits for a core for part
/// of the wall time, so this rate varies far less from run to run than the wall-clock one: it is
/// the figure to compare one-thread paths by. It says nothing about scaling (two threads that
/// each take twice as long count the same as one).
let attemptsPerCPUSecond = BenchmarkMetric.custom(
    "k attempts/CPU s", polarity: .prefersLarger, useScalingFactor: false)

/// CPU time this process has used, in seconds.
func processCPUSeconds() -> Double {
    #if canImport(Glibc)
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    #else
    return 0
    #endif
}

/// Runs `body`, then records its rate of `count` attempts, per wall-clock and per CPU second.
func measureRate(_ benchmark: Benchmark, count: Int, _ body: () -> Void) {
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let cpuStart = processCPUSeconds()
    let start = clock.now
    body()
    let elapsed = clock.now - start
    let cpu = processCPUSeconds() - cpuStart
    benchmark.stopMeasurement()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    benchmark.measurement(attemptsPerSecond, Int(Double(count) / max(seconds, 1e-9) / 1_000))
    benchmark.measurement(attemptsPerCPUSecond, Int(Double(count) / max(cpu, 1e-9) / 1_000))
}

/// `range` cut into `parts` consecutive ranges of equal length (the remainder left out).
func split(_ range: Range<Int>, into parts: Int) -> [Range<Int>] {
    let share = range.count / parts
    return (0..<parts).map { (range.lowerBound + $0 * share)..<(range.lowerBound + ($0 + 1) * share) }
}

/// Makes attempts on `scheduler` from `ranges.count` threads together: thread *t* makes
/// `lists[t % lists.count][ranges[t]]`, in batches of 1,024 or one call each.
func runOnThreads(
    _ scheduler: Scheduler, _ lists: [[(SlotRef, UserID)]], _ ranges: [Range<Int>], batched: Bool, at now: Instant
) {
    DispatchQueue.concurrentPerform(iterations: ranges.count) { t in
        let attempts = lists[t % lists.count]
        blackHole(
            batched
                ? acceptedInBatches(scheduler, attempts, ranges[t], at: now)
                : acceptedOneByOne(scheduler, attempts, ranges[t], at: now))
    }
}

nonisolated(unsafe) var sharedDisjointAttempts: [[(SlotRef, UserID)]]?
func disjointAttempts(_ w: Workload) -> [[(SlotRef, UserID)]] {
    if let sharedDisjointAttempts { return sharedDisjointAttempts }
    let made = w.disjointAttempts
    sharedDisjointAttempts = made
    return made
}

nonisolated(unsafe) var sharedLongHistoryAttempts: [(SlotRef, UserID)]?
func longHistoryAttempts(_ w: Workload) -> [(SlotRef, UserID)] {
    if let sharedLongHistoryAttempts { return sharedLongHistoryAttempts }
    let made = w.longHistoryAttempts
    sharedLongHistoryAttempts = made
    return made
}

/// One benchmark iteration on a ledger kept in `state`: `make` builds it when there is none or
/// the attempts are used up; `run` makes the next 1 M attempts, timed.
func ledgerIteration(
    _ benchmark: Benchmark, _ state: State, total: Int, make: () throws -> Ledger,
    _ run: (inout Ledger, Range<Int>) -> Int
) {
    if state.ledger == nil || state.cursor >= total {
        state.ledger = try? make()
        state.cursor = 0
    }
    guard var ledger = state.ledger else { return }
    state.ledger = nil
    let range = state.cursor..<(state.cursor + attemptsPerIteration)
    var accepted = 0
    measureRate(benchmark, count: attemptsPerIteration) { accepted = run(&ledger, range) }
    blackHole(accepted)
    state.ledger = ledger
    state.cursor += attemptsPerIteration
}

nonisolated(unsafe) var sharedWorkload: Workload?
func workload() -> Workload {
    if let sharedWorkload { return sharedWorkload }
    do {
        let made = try Workload(attempts: 10 * attemptsPerIteration)
        sharedWorkload = made
        return made
    } catch {
        print("cannot build the workload: \(error)")
        exit(1)
    }
}

func throughputConfiguration() -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, attemptsPerSecond, attemptsPerCPUSecond], timeUnits: .milliseconds,
        maxDuration: .seconds(60),
        maxIterations: 10)
}

let benchmarks: @Sendable () -> Void = {
    // Ledger fast path: every rule checked (time, DST, horizon, closures, taken, user limit), journal on.
    // Each iteration books the next 1 M attempts of the 10 M workload into the same ledger.
    let ledgerState = State()
    Benchmark("Ledger.attempt, 1 thread", configuration: throughputConfiguration()) { benchmark in
        let w = workload()
        ledgerIteration(benchmark, ledgerState, total: w.attempts.count, make: { try w.makeLedger() }) {
            acceptedOneByOne(&$0, w.attempts, $1, at: w.now)
        }
    }

    // The floor: the same attempts on the least state that decides them (a bit per socket-hour,
    // a count per user), no time rules, records or journal. What the ledger's batches are compared to.
    let floorState = State()
    Benchmark("Floor: bitset + user counts, 1 thread", configuration: throughputConfiguration()) { benchmark in
        let w = workload()
        if floorState.floor == nil || floorState.cursor >= w.attempts.count {
            floorState.floor = Floor(w)
            floorState.cursor = 0
        }
        guard var floor = floorState.floor else { return }
        floorState.floor = nil
        let start = floorState.cursor
        var accepted = 0
        measureRate(benchmark, count: attemptsPerIteration) {
            for i in start..<(start + attemptsPerIteration) where floor.attempt(w.attempts[i].0, for: w.attempts[i].1) {
                accepted += 1
            }
        }
        blackHole(accepted)
        floorState.floor = floor
        floorState.cursor += attemptsPerIteration
    }

    // History: 100 users, each already holding 10,000 ended bookings (see `Workload.historyUsers`),
    // make the standard attempts (user ids folded into the 100). The limit check must not walk
    // the ended bookings.
    let historyState = State()
    Benchmark("Ledger.attempt, long history", configuration: throughputConfiguration()) { benchmark in
        let w = workload()
        let attempts = longHistoryAttempts(w)
        ledgerIteration(benchmark, historyState, total: attempts.count, make: { try w.makeLongHistoryLedger() }) {
            acceptedOneByOne(&$0, attempts, $1, at: w.now)
        }
    }

    let schedulerHistoryState = State()
    Benchmark("Scheduler.attempt, long history", configuration: throughputConfiguration()) { benchmark in
        let w = workload()
        let attempts = longHistoryAttempts(w)
        if schedulerHistoryState.scheduler == nil || schedulerHistoryState.cursor >= attempts.count {
            schedulerHistoryState.scheduler = try? w.makeLongHistoryScheduler()
            schedulerHistoryState.cursor = 0
        }
        guard let scheduler = schedulerHistoryState.scheduler else { return }
        let start = schedulerHistoryState.cursor
        var accepted = 0
        measureRate(benchmark, count: attemptsPerIteration) {
            for i in start..<(start + attemptsPerIteration)
            where scheduler.attempt(attempts[i].0, for: attempts[i].1, at: w.now).isAccepted {
                accepted += 1
            }
        }
        blackHole(accepted)
        schedulerHistoryState.cursor += attemptsPerIteration
    }

    // The same attempts in batches of 1,024 (`Ledger.attempt(_:at:)` on a slice): each window
    // of 32 reads its slots' and users' memory before deciding, so the cache misses overlap.
    let batchState = State()
    Benchmark("Ledger.attempt, batches of 1024, 1 thread", configuration: throughputConfiguration()) { benchmark in
        let w = workload()
        ledgerIteration(benchmark, batchState, total: w.attempts.count, make: { try w.makeLedger() }) {
            acceptedInBatches(&$0, w.attempts, $1, at: w.now)
        }
    }

    // The public string-keyed API, for comparison: resolves ids and builds a Booking or Rejection.
    let requestState = State()
    Benchmark("Ledger.reserve (string ids), 1 thread", configuration: throughputConfiguration()) { benchmark in
        let w = workload()
        if requestState.ledger == nil || requestState.cursor >= w.attempts.count {
            requestState.ledger = try? w.makeLedger()
            requestState.cursor = 0
        }
        guard var ledger = requestState.ledger else { return }
        requestState.ledger = nil
        let start = requestState.cursor
        let requests = w.attempts[start..<(start + attemptsPerIteration)].map {
            ReservationRequest(slot: w.rules.catalog.slot($0.0), user: $0.1)
        }
        var accepted = 0
        measureRate(benchmark, count: attemptsPerIteration) {
            for request in requests where (try? ledger.reserve(request, at: w.now)) != nil { accepted += 1 }
        }
        blackHole(accepted)
        requestState.ledger = ledger
        requestState.cursor += attemptsPerIteration
    }

    // The scheduler, one call per attempt or batches of 1,024 (one shard lock per shard per
    // batch, prefetching under it), on 1 and 2 threads sharing one scheduler. The 2 threads
    // split each iteration's attempts in halves, or, in the `disjoint` runs, take the
    // attempts of `Workload.disjointAttempts` (stations and users of their own parity: no lock
    // or book in common).
    for batched in [false, true] {
        for (threads, disjoint) in [(1, false), (2, false), (2, true)] {
            let state = State()
            let name =
                "Scheduler.attempt, \(batched ? "batches of 1024, " : "")\(threads) thread\(threads == 1 ? "" : "s")"
                + (disjoint ? ", disjoint" : "")
            Benchmark(name, configuration: throughputConfiguration()) { benchmark in
                let w = workload()
                let lists = disjoint ? disjointAttempts(w) : [w.attempts]
                let total = lists.map(\.count).min() ?? 0
                let share = attemptsPerIteration / threads
                let step = disjoint ? share : attemptsPerIteration
                if state.scheduler == nil || state.cursor + step > total {
                    state.scheduler = try? w.makeScheduler()
                    state.cursor = 0
                }
                guard let scheduler = state.scheduler else { return }
                let start = state.cursor
                let ranges =
                    disjoint
                    ? Array(repeating: start..<(start + share), count: threads)
                    : split(start..<(start + attemptsPerIteration), into: threads)
                measureRate(benchmark, count: attemptsPerIteration) {
                    runOnThreads(scheduler, lists, ranges, batched: batched, at: w.now)
                }
                state.cursor += step
            }
        }
    }

    pairedBenchmarks()
    retentionBenchmarks()
    reminderBenchmarks()

    // Memory: resident bytes per active booking with 10 M bookings (each slot filled in order,
    // users round robin so nobody reaches the limit), with and without the event journal.
    for journaling in [false, true] {
        Benchmark(
            "Memory per booking at 10 M bookings, journal \(journaling ? "on" : "off")",
            configuration: .init(
                metrics: [.custom("bytes per booking", polarity: .prefersSmaller, useScalingFactor: false)],
                maxIterations: 1)
        ) { benchmark in
            let w = workload()
            let before = residentBytes()
            guard var ledger = try? w.makeLedger(journaling: journaling) else { return }
            var made = 0
            let catalog = w.rules.catalog
            outer: for d in 0..<Workload.days {
                for s in 0..<Workload.stationCount {
                    for k in 0..<Workload.socketsPerStation {
                        for h in 0..<24 {
                            let slot = Slot(
                                station: StationID("ST-\(s)"), socket: SocketID("\(k)"),
                                date: w.firstDay.adding(days: d),
                                hour: h)
                            guard let ref = try? catalog.resolve(slot) else { continue }
                            if ledger.attempt(ref, for: UserID(UInt64(made) % Workload.users), at: w.now).isAccepted {
                                made += 1
                                if made == 10_000_000 { break outer }
                            }
                        }
                    }
                }
            }
            let after = residentBytes()
            benchmark.measurement(
                .custom("bytes per booking", polarity: .prefersSmaller, useScalingFactor: false),
                (after - before) / max(1, ledger.activeBookingCount))
            blackHole(ledger)
        }
    }
}
