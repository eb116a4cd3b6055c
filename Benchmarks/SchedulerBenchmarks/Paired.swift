import Benchmark
import Dispatch
import SlotScheduler

/// The throughput of one path over another's, ×100, from runs of the same attempts taken in
/// alternation (see ``pairedBenchmarks()``).
let ratioPercent = BenchmarkMetric.custom("ratio ×100", polarity: .prefersLarger, useScalingFactor: false)

/// One side of a paired benchmark: a path and the state it books into, built on first use and
/// again when the workload's attempts are used up.
///
/// `@unchecked Sendable`: as ``State``, used by one benchmark's iterations one after another.
/// A class with one optional per kind of state, not an enum with the state as payload: taking a
/// payload out in a `switch` kept the enum's copy alive, so the first write copied the whole book.
final class PairedSide: @unchecked Sendable {
    enum Path {
        case floor
        case ledger(batched: Bool)
        case scheduler(threads: Int, batched: Bool)
    }

    let path: Path
    private var floor: Floor?
    private var ledger: Ledger?
    private var scheduler: Scheduler?

    init(_ path: Path) {
        self.path = path
    }

    /// Builds the state anew (an empty book with the workload's closures).
    func reset(_ w: Workload) {
        (floor, ledger, scheduler) = (nil, nil, nil)
        switch path {
        case .floor: floor = Floor(w)
        case .ledger: ledger = try? w.makeLedger()
        case .scheduler: scheduler = try? w.makeScheduler()
        }
    }

    /// Makes `w.attempts[range]` on this side's state; returns the wall-clock seconds taken.
    func time(_ w: Workload, _ range: Range<Int>) -> Double {
        let clock = ContinuousClock()
        var accepted = 0
        let elapsed: Duration
        switch path {
        case .floor:
            guard var floor else { return .nan }
            self.floor = nil
            elapsed = clock.measure {
                for i in range where floor.attempt(w.attempts[i].0, for: w.attempts[i].1) { accepted += 1 }
            }
            self.floor = floor
        case .ledger(let batched):
            guard var ledger else { return .nan }
            self.ledger = nil
            elapsed = clock.measure {
                accepted =
                    batched
                    ? acceptedInBatches(&ledger, w.attempts, range, at: w.now)
                    : acceptedOneByOne(&ledger, w.attempts, range, at: w.now)
            }
            self.ledger = ledger
        case .scheduler(let threads, let batched):
            guard let scheduler else { return .nan }
            let ranges = split(range, into: threads)
            elapsed = clock.measure { runOnThreads(scheduler, [w.attempts], ranges, batched: batched, at: w.now) }
        }
        blackHole(accepted)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// Two sides booking the same attempts, each into its own state, and where they are.
///
/// `@unchecked Sendable`: as ``State``, used by one benchmark's iterations one after another.
final class PairedState: @unchecked Sendable {
    let numerator: PairedSide
    let denominator: PairedSide
    var cursor = Int.max
    var iteration = 0

    init(_ numerator: PairedSide.Path, over denominator: PairedSide.Path) {
        self.numerator = PairedSide(numerator)
        self.denominator = PairedSide(denominator)
    }
}

/// The benchmarks that state a target as a ratio, measured as one: each iteration makes the
/// next 1 M attempts on both sides, one right after the other (which goes first alternates), and
/// records the numerator's throughput over the denominator's. On this shared machine the speed of
/// a core drifts by a third over seconds; two separate benchmarks run tens of seconds apart, so a
/// ratio of their medians moves with the drift (docs/performance/history-2026-11-scheduler.md
/// has such runs), while a pair is timed within a second.
func pairedBenchmarks() {
    let pairs: [(String, () -> PairedState)] = [
        (
            "Paired: Scheduler.attempt, 2 threads ÷ 1 thread",
            {
                PairedState(
                    .scheduler(threads: 2, batched: false), over: .scheduler(threads: 1, batched: false))
            }
        ),
        (
            "Paired: Scheduler.attempt, batches of 1024, 2 threads ÷ 1 thread",
            {
                PairedState(
                    .scheduler(threads: 2, batched: true), over: .scheduler(threads: 1, batched: true))
            }
        ),
        (
            "Paired: Scheduler.attempt ÷ Ledger.attempt, 1 thread",
            { PairedState(.scheduler(threads: 1, batched: false), over: .ledger(batched: false)) }
        ),
        (
            "Paired: Scheduler batches ÷ Ledger batches, 1 thread",
            { PairedState(.scheduler(threads: 1, batched: true), over: .ledger(batched: true)) }
        ),
        (
            "Paired: Ledger.attempt, batches of 1024 ÷ Floor, 1 thread",
            { PairedState(.ledger(batched: true), over: .floor) }
        ),
    ]
    for (name, make) in pairs {
        let state = make()
        Benchmark(
            name,
            configuration: Benchmark.Configuration(
                metrics: [ratioPercent], maxDuration: .seconds(120), maxIterations: 10)
        ) { benchmark in
            let w = workload()
            if state.cursor >= w.attempts.count {
                state.numerator.reset(w)
                state.denominator.reset(w)
                state.cursor = 0
            }
            let range = state.cursor..<(state.cursor + attemptsPerIteration)
            let (top, bottom): (Double, Double)
            if state.iteration.isMultiple(of: 2) {
                top = state.numerator.time(w, range)
                bottom = state.denominator.time(w, range)
            } else {
                bottom = state.denominator.time(w, range)
                top = state.numerator.time(w, range)
            }
            benchmark.measurement(ratioPercent, Int((100 * bottom / top).rounded()))
            state.cursor += attemptsPerIteration
            state.iteration += 1
        }
    }
}
