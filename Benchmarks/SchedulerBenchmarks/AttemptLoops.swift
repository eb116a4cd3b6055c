import SlotScheduler

// The loops the benchmarks time and `AttemptProfile` counts (linked into both).

/// One `Ledger.attempt` call per attempt of `attempts[range]`; returns how many were accepted.
func acceptedOneByOne(_ ledger: inout Ledger, _ attempts: [(SlotRef, UserID)], _ range: Range<Int>, at now: Instant)
    -> Int
{
    var accepted = 0
    for i in range where ledger.attempt(attempts[i].0, for: attempts[i].1, at: now).isAccepted { accepted += 1 }
    return accepted
}

/// `Ledger.attempt(_:at:)` on batches of 1,024 of `attempts[range]`; returns how many were accepted.
func acceptedInBatches(_ ledger: inout Ledger, _ attempts: [(SlotRef, UserID)], _ range: Range<Int>, at now: Instant)
    -> Int
{
    var accepted = 0
    for i in stride(from: range.lowerBound, to: range.upperBound, by: 1024) {
        accepted += ledger.attempt(attempts[i..<min(i + 1024, range.upperBound)], at: now).count(where: \.isAccepted)
    }
    return accepted
}

/// Runs `attempts[range]` one call each; returns how many were accepted.
func acceptedOneByOne(
    _ scheduler: Scheduler, _ attempts: [(SlotRef, UserID)], _ range: Range<Int>, at now: Instant
) -> Int {
    var accepted = 0
    for i in range where scheduler.attempt(attempts[i].0, for: attempts[i].1, at: now).isAccepted {
        accepted += 1
    }
    return accepted
}

/// Runs `attempts[range]` in batches of 1,024; returns how many were accepted.
func acceptedInBatches(
    _ scheduler: Scheduler, _ attempts: [(SlotRef, UserID)], _ range: Range<Int>, at now: Instant
) -> Int {
    var accepted = 0
    for i in stride(from: range.lowerBound, to: range.upperBound, by: 1024) {
        let batch = attempts[i..<min(i + 1024, range.upperBound)]
        accepted += scheduler.attempt(batch, at: now).count(where: \.isAccepted)
    }
    return accepted
}
