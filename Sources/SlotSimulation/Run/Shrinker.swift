import SlotScheduler

/// Makes a failing scenario smaller while it keeps failing: fewer operations (the seeded
/// workload is deterministic, so a prefix replays exactly), fewer timeline changes, fewer steps.
public enum Shrinker {
    /// - Parameters:
    ///   - fails: whether a candidate still fails; candidates that do not validate are skipped.
    ///   - maxRuns: the most candidate runs to try.
    public static func shrink(
        _ scenario: Scenario, file: String, maxRuns: Int = 400, fails: (PreparedScenario) -> Bool
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
        best.steps = shrinkList(best.steps ?? [], hasBudget: hasBudget) { list in
            var c = best
            c.steps = list
            return attempt(c)
        }
        if best.steps?.isEmpty == true { best.steps = nil }
        best.name = scenario.name + "-shrunk"
        best.description = "Shrunk from \(scenario.name) (\(file)); still fails."
        return best
    }

    /// Removes chunks, halving the chunk size, while `stillFails` holds.
    static func shrinkList<T>(_ list: [T], hasBudget: () -> Bool, stillFails: ([T]) -> Bool) -> [T] {
        var current = list
        var chunk = max(1, current.count / 2)
        while chunk >= 1 && !current.isEmpty && hasBudget() {
            var start = 0
            while start < current.count && hasBudget() {
                var candidate = current
                candidate.removeSubrange(start..<min(current.count, start + chunk))
                if stillFails(candidate) { current = candidate } else { start += chunk }
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        return current
    }
}
