import SlotScheduler

/// The report of a threads-mode run: counts, latencies, contention and each invariant's result.
extension ThreadsAnalysis {
    func report(threads: Int, elapsed: Double, operations: Int) -> Report {
        var refused: [Rejection.Reason: Int] = [:]
        var accepted = 0
        var cancelled = 0
        var repeats = 0
        var queries = 0
        var changes = 0
        var displaced = 0
        var attempts: [Int32: (Int, Int)] = [:]
        var latencies = Latencies()
        var lifecycle = Report.Lifecycle()
        lifecycle.checkedIn = sessionsCheckedIn
        for (i, op) in history.enumerated() {
            if let r = op.reason { refused[r, default: 0] += 1 }
            // Resolved indeterminate operations count as what the client saw: an error.
            guard !op.resolvedIndeterminate else { continue }
            latencies.add(op.complete - op.invoke)
            switch op.kind {
            case .reserve:
                if op.repeatOf != 0 { repeats += 1 }
                if op.outcome == -1 && op.repeatOf == 0 { accepted += 1 }
                var a = attempts[op.cell] ?? (0, 0)
                a.0 += 1
                if op.outcome == -1 && op.repeatOf == 0 { a.1 += 1 }
                attempts[op.cell] = a
            case .cancel: if op.outcome == -1 { cancelled += 1 }
            case .hold: if op.outcome == -1 { lifecycle.holds += 1 }
            case .confirm: if op.outcome == -1, placements[op.booking]?.first == i { lifecycle.confirmed += 1 }
            case .releaseHold: if op.outcome == -1 { lifecycle.releasedHolds += 1 }
            case .reschedule: if movedFrom[i] != nil { lifecycle.rescheduled += 1 }
            case .anySocket: if op.outcome == -1, placements[op.booking]?.first == i { lifecycle.anySocket += 1 }
            case .checkIn: break
            case .checkOut:
                if op.outcome == -1 { lifecycle.checkedOut += 1 }
                if op.outcome == -1, op.leftAt != nil { lifecycle.relocated += 1 }
            case .query: queries += 1
            case .change:
                changes += 1
                displaced += op.displaced.count
            }
        }
        let ranks = [0.5, 0.99].map { min(latencies.count - 1, Int(Double(latencies.count) * $0)) }
        let values = latencies.values(
            at: ranks, rereading: history.lazy.filter { !$0.resolvedIndeterminate }.map { $0.complete - $0.invoke })
        func percentile(_ k: Int) -> Double? { latencies.count == 0 ? nil : Double(values[k]) / 1_000 }
        var contention: Report.Contention?
        if let best = attempts.keys.sorted().max(by: { (attempts[$0]?.0 ?? 0, $1) < (attempts[$1]?.0 ?? 0, $0) }),
            let (n, ok) = attempts[best]
        {
            let ops = history.filter { $0.cell == best }
            contention = .init(
                slot: p.slot(ofCell: best).description, attempts: n, accepted: ok, concurrent: Self.maxOverlap(ops),
                inFlight: Self.maxOverlap(history))
        }
        // I10 compares every answer with the model: threads mode has no single order to do so.
        let invariants = Report.InvariantResult.all(
            violations: violations, expected: p.scenario.expectations?.invariants, unchecked: .I10)
        let reasons = refused.map { Report.ReasonCount(reason: $0.key.rawValue, count: $0.value) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
        let ops = operations
        var report = Report(
            scenario: p.scenario.name, file: p.file, seed: p.scenario.seed, mode: "threads", threads: threads,
            steps: p.steps.count, operations: ops, accepted: accepted, refused: refused.values.reduce(0, +),
            refusedByReason: reasons, cancelled: cancelled, displaced: displaced, repeats: repeats, queries: queries,
            availabilityChanges: changes, peakContention: contention, invariants: invariants,
            linearizability: linearizability, expectations: [], failures: failures,
            timing: .init(
                seconds: elapsed, operationsPerSecond: elapsed > 0 ? Double(ops) / elapsed : 0,
                p50Microseconds: percentile(0), p99Microseconds: percentile(1)),
            provenance: p.scenario.provenance, attribution: p.scenario.attribution, verdict: "pass",
            indeterminate: indeterminate.total > 0 ? indeterminate : nil)
        report.lifecycle = lifecycle.orNil
        return report
    }

    /// The most operations in flight at once (a call completing when another is invoked counts
    /// as finished first).
    ///
    /// In invoke order (as a history is), the completions of the calls started are kept in a heap
    /// and those at or before each invoke time taken out, so memory follows the calls in flight;
    /// in any other order both times are sorted.
    /// - Complexity: O(n log k) for k in flight at once, or O(n log n) and 16 bytes per operation.
    static func maxOverlap<C: Collection<TimedOperation>>(_ ops: C) -> Int {
        let inInvokeOrder =
            zip(ops, ops.dropFirst()).allSatisfy { $0.invoke <= $1.invoke }
            && ops.allSatisfy { $0.invoke <= $0.complete }
        guard inInvokeOrder else {
            let invokes = ops.map(\.invoke).sorted()
            let completes = ops.map(\.complete).sorted()
            var finished = 0
            var best = 0
            for (started, time) in invokes.enumerated() {
                while finished < completes.count && completes[finished] <= time { finished += 1 }
                best = max(best, started + 1 - finished)
            }
            return best
        }
        // Calls invoked at one time are counted together: a completion at that time, by any of
        // them, counts as finished first.
        var pending = MinHeap()
        var started = 0
        var finished = 0
        var best = 0
        var rest = ops[...]
        while let time = rest.first?.invoke {
            while let op = rest.first, op.invoke == time {
                pending.insert(op.complete)
                started += 1
                rest = rest.dropFirst()
            }
            while let next = pending.min, next <= time {
                pending.removeMin()
                finished += 1
            }
            best = max(best, started - finished)
        }
        return best
    }
}
