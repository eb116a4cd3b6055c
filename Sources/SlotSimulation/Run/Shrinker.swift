import SlotScheduler

/// Makes a failing scenario smaller while it keeps failing: fewer operations (the seeded
/// workload is deterministic, so a prefix replays exactly), fewer timeline changes, fewer steps.
public enum Shrinker {
    /// Shrinks a scenario whose run gave `failing`, keeping the failure: every candidate must
    /// fail the same way (``sameFailure(_:_:)``), and a step whose expectation failed is never
    /// removed, so the shrunk scenario still holds the failing step.
    /// - Parameters:
    ///   - scenario: the failing scenario.
    ///   - file: its path; the shrunk scenario's description names it.
    ///   - failing: the report of its failing run.
    ///   - maxRuns: the most candidate runs to try.
    ///   - run: runs a candidate (`nil` if it could not run).
    public static func shrink(
        _ scenario: Scenario, file: String, failing: Report, maxRuns: Int = 400,
        run: (PreparedScenario) -> Report?
    ) -> Scenario {
        let pinned = Set(
            failingSteps(failing).compactMap { i in scenario.steps?.indices.contains(i) == true ? i : nil })
        let keep = pinned.compactMap { scenario.steps?[$0] }
        return shrink(scenario, file: file, maxRuns: maxRuns, keepStep: { keep.contains($0) }) { candidate in
            run(candidate).map { sameFailure(failing, $0) } ?? false
        }
    }

    /// Whether `candidate` fails as `original` does: one of its failures names the invariant of
    /// the original's first failure (for an expectation: the same kind, step or count).
    public static func sameFailure(_ original: Report, _ candidate: Report) -> Bool {
        guard !candidate.passed else { return false }
        guard let first = original.failures.first else {
            // Failed without a recorded failure: a count expectation or linearizability.
            let want = Set(original.expectations.filter { !$0.pass }.map(\.what))
            let got = Set(candidate.expectations.filter { !$0.pass }.map(\.what))
            return want.isEmpty ? candidate.verdict == original.verdict : !want.isDisjoint(with: got)
        }
        if first.invariant != "expectation" {
            return candidate.failures.contains { $0.invariant == first.invariant }
        }
        // A step's expectation: its index may move as other steps go; compare the rest of the text.
        return candidate.failures.contains {
            $0.invariant == "expectation" && stripIndex($0.message) == stripIndex(first.message)
        }
    }

    /// The indices of the steps whose expectations failed (`steps[i] ...` in the failures).
    static func failingSteps(_ report: Report) -> [Int] {
        report.failures.compactMap { failure in
            guard failure.invariant == "expectation", failure.message.hasPrefix("steps[") else { return nil }
            return Int(failure.message.dropFirst(6).prefix { $0.isNumber })
        }
    }

    static func stripIndex(_ message: String) -> String {
        guard message.hasPrefix("steps["), let close = message.firstIndex(of: "]") else { return message }
        return String(message[close...])
    }

    /// Shrinks `scenario` while `fails` holds: fewer operations, timeline changes and steps.
    /// - Parameters:
    ///   - scenario: the scenario to shrink.
    ///   - file: its path; the shrunk scenario's description names it.
    ///   - keepStep: steps that are never removed.
    ///   - fails: whether a candidate still fails; candidates that do not validate are skipped.
    ///   - maxRuns: the most candidate runs to try.
    public static func shrink(
        _ scenario: Scenario, file: String, maxRuns: Int = 400, keepStep: (Step) -> Bool = { _ in false },
        fails: (PreparedScenario) -> Bool
    ) -> Scenario {
        var best = scenario
        var runs = 0
        func attempt(_ candidate: Scenario) -> Bool {
            guard runs < maxRuns, let prepared = try? candidate.prepare(file: file) else { return false }
            runs += 1
            return fails(prepared)
        }
        // Fewest operations that still fail.
        if let w = best.workload, w.operations > 0 {
            var low = 0
            var high = w.operations
            while low < high, runs < maxRuns {
                let mid = (low + high) / 2
                var c = best
                c.workload?.operations = mid
                c.timeline = c.timeline?.filter { $0.atOperation <= mid }
                if attempt(c) { high = mid } else { low = mid + 1 }
            }
            best.workload?.operations = high
            best.timeline = best.timeline?.filter { $0.atOperation <= high }
            if high == 0 {
                var c = best
                c.workload = nil
                c.timeline = nil
                if attempt(c) { best = c }
            }
        }
        // The budget is read through a closure: passing `runs` inout while `attempt` also
        // updates it would be an exclusivity violation.
        let hasBudget = { runs < maxRuns }
        best.timeline = shrinkList(best.timeline ?? [], hasBudget: hasBudget) { list in
            var c = best
            c.timeline = list
            return attempt(c)
        }
        if best.timeline?.isEmpty == true { best.timeline = nil }
        best.steps = shrinkList(best.steps ?? [], keep: keepStep, hasBudget: hasBudget) { list in
            var c = best
            c.steps = list
            return attempt(c)
        }
        if best.steps?.isEmpty == true { best.steps = nil }
        best.name = scenario.name + "-shrunk"
        best.description = "Shrunk from \(scenario.name) (\(file)); still fails."
        // The mark of a scenario schedule-sim wrote (see `OutputKind.scenario`).
        var provenance =
            scenario.provenance ?? Provenance(source: file, rowsRead: 0, stepsWritten: 0, skipped: [:], notes: [])
        provenance.stepsWritten = best.steps?.count ?? 0
        provenance.notes.append("shrunk from \(file) by schedule-sim run --shrink; still fails")
        best.provenance = provenance
        return best
    }

    /// Removes chunks, halving the chunk size, while `stillFails` holds.
    /// Items for which `keep` holds are never removed.
    static func shrinkList<T>(
        _ list: [T], keep: (T) -> Bool = { _ in false }, hasBudget: () -> Bool, stillFails: ([T]) -> Bool
    ) -> [T] {
        var current = list
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && !current.isEmpty && hasBudget() {
            var start = 0
            while start < current.count && hasBudget() {
                let end = min(current.count, start + chunk)
                var candidate = Array(current[..<start])
                candidate += current[start..<end].filter(keep)
                candidate += current[end...]
                if candidate.count < current.count, stillFails(candidate) {
                    current = candidate
                } else {
                    start += chunk
                }
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        return current
    }
}
