import SlotScheduler

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed, small workload for `valgrind --tool=callgrind`: instruction counts per attempt of
/// the benchmarks' one-call paths, repeatable on a busy machine (see the Concurrency article).
///
///     swift build --package-path Benchmarks -c release -Xswiftc -g --product AttemptProfile \
///         --scratch-path Benchmarks/.build-profile
///     valgrind --tool=callgrind --toggle-collect='*measured*' \
///         Benchmarks/.build-profile/release/AttemptProfile scheduler
///
/// Builds the benchmarks' workload (300,000 attempts), makes the first 200,000 as a warm-up,
/// then the next 100,000 in `measured(_:)`, one call each. Modes: `ledger`, `scheduler`,
/// `ledger-history`, `scheduler-history` (the long-history workload of `Workload+History.swift`),
/// `ledger-batches`, `scheduler-batches` (batches of 1,024, `AttemptLoops.swift`).
/// Divide the `measured` function's inclusive instruction count by 100,000. `PROFILE_WARMUP`
/// (environment) sets another warm-up, to count a later, fuller window: at 5,000,000 about two
/// thirds of the counted attempts are accepted, against 97 % after the default.
let mode = CommandLine.arguments.dropFirst().first ?? "scheduler"
let warmUp = getenv("PROFILE_WARMUP").flatMap { Int(String(cString: $0)) }.map { max(0, $0) } ?? 200_000
let counted = 100_000

@inline(never)
func loop(_ ledger: inout Ledger, _ attempts: ArraySlice<(SlotRef, UserID)>, at now: Instant) -> Int {
    var accepted = 0
    for (ref, user) in attempts where ledger.attempt(ref, for: user, at: now).isAccepted { accepted += 1 }
    return accepted
}

@inline(never)
func loop(_ scheduler: Scheduler, _ attempts: ArraySlice<(SlotRef, UserID)>, at now: Instant) -> Int {
    var accepted = 0
    for (ref, user) in attempts where scheduler.attempt(ref, for: user, at: now).isAccepted { accepted += 1 }
    return accepted
}

/// The counted loop: the only function `--toggle-collect='*measured*'` counts.
@inline(never)
func measured(_ body: () -> Int) -> Int { body() }

do {
    let w = try Workload(attempts: warmUp + counted)
    let history = mode.hasSuffix("-history")
    let attempts = history ? w.longHistoryAttempts : w.attempts
    var accepted = 0
    switch mode {
    case "ledger", "ledger-history":
        var ledger = try history ? w.makeLongHistoryLedger() : w.makeLedger()
        _ = loop(&ledger, attempts[..<warmUp], at: w.now)
        accepted = measured { loop(&ledger, attempts[warmUp...], at: w.now) }
    case "ledger-batches":
        var ledger = try w.makeLedger()
        _ = acceptedInBatches(&ledger, attempts, 0..<warmUp, at: w.now)
        accepted = measured { acceptedInBatches(&ledger, attempts, warmUp..<attempts.count, at: w.now) }
    case "scheduler-batches":
        let scheduler = try w.makeScheduler()
        _ = acceptedInBatches(scheduler, attempts, 0..<warmUp, at: w.now)
        accepted = measured { acceptedInBatches(scheduler, attempts, warmUp..<attempts.count, at: w.now) }
    case "scheduler", "scheduler-history":
        let layout = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
        let scheduler =
            try history
            ? w.makeLongHistoryScheduler()
            : layout.count == 2 ? w.makeScheduler(shards: layout[0], stripes: layout[1]) : w.makeScheduler()
        _ = loop(scheduler, attempts[..<warmUp], at: w.now)
        accepted = measured { loop(scheduler, attempts[warmUp...], at: w.now) }
    default:
        print(
            "unknown mode \(mode): ledger, scheduler, ledger-history, scheduler-history, ledger-batches or"
                + " scheduler-batches")
    }
    print("\(mode): \(accepted) of \(counted) counted attempts accepted")
} catch {
    print("cannot build the workload: \(error)")
}
