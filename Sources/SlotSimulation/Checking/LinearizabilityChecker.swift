import SlotScheduler

/// A sequential specification for the WGL search: a state and a partial step function.
public protocol SequentialSpecification {
    associatedtype State: Hashable
    var initial: State { get }
    /// The state after `op`, or `nil` if `op`'s recorded result is impossible in `state`.
    func step(_ state: State, _ op: Int) -> State?
}

/// The result of a linearizability search.
public enum LinearizabilityVerdict: String, Sendable, Codable {
    case linearizable
    case notLinearizable = "not linearizable"
    /// The search reached its bound before deciding.
    case unknown
}

/// The Wing–Gong–Lowe search (as in Knossos and Porcupine) for a sequential order of a history
/// that respects real time and that the specification accepts.
///
/// The search keeps a list of call and return events; it tries to linearize each pending call in
/// turn, backtracking when it meets a return whose call it could not place. Visited
/// (linearized set, state) pairs are memoised; the set is hashed incrementally with 128-bit
/// Zobrist keys, so memory stays proportional to the states visited, not to the history length.
public enum LinearizabilityChecker {
    /// Searches for an order of the operations that respects real time and that `spec` accepts.
    /// - Parameters:
    ///   - spec: the sequential specification; operation `i` is its step `i`.
    ///   - intervals: per operation, its invoke and complete times (complete ≥ invoke).
    ///   - budget: the most search steps before answering ``LinearizabilityVerdict/unknown``.
    public static func check<S: SequentialSpecification>(
        _ spec: S, intervals: [(invoke: Int64, complete: Int64)], budget: Int = 2_000_000
    ) -> LinearizabilityVerdict {
        let n = intervals.count
        if n == 0 { return .linearizable }
        // Events: call = 2i, return = 2i+1. Calls sort before returns at equal times (overlap).
        var events = [Int](0..<(2 * n))
        events.sort { a, b in
            let ta = a & 1 == 0 ? intervals[a >> 1].invoke : intervals[a >> 1].complete
            let tb = b & 1 == 0 ? intervals[b >> 1].invoke : intervals[b >> 1].complete
            if ta != tb { return ta < tb }
            if a & 1 != b & 1 { return a & 1 == 0 }
            return a < b
        }
        let head = 2 * n
        var next = [Int](repeating: -1, count: 2 * n + 1)
        var prev = [Int](repeating: -1, count: 2 * n + 1)
        var last = head
        for e in events {
            next[last] = e
            prev[e] = last
            last = e
        }
        var keys: [(UInt64, UInt64)] = []
        keys.reserveCapacity(n)
        var rng = SplitMix64(seed: 0x11AE_A812_AB1E)
        for _ in 0..<n { keys.append((rng.next(), rng.next())) }

        var cache = Set<SearchKey<S.State>>()
        var stack: [(call: Int, state: S.State)] = []
        var state = spec.initial
        var hash: (UInt64, UInt64) = (0, 0)
        var e = next[head]
        var steps = 0

        func lift(_ call: Int) {
            for x in [call, call + 1] {
                next[prev[x]] = next[x]
                if next[x] >= 0 { prev[next[x]] = prev[x] }
            }
        }
        func unlift(_ call: Int) {
            for x in [call + 1, call] {
                if next[x] >= 0 { prev[next[x]] = x }
                next[prev[x]] = x
            }
        }

        while true {
            if next[head] < 0 { return .linearizable }
            steps += 1
            if steps > budget { return .unknown }
            if e < 0 { return .notLinearizable }
            if e & 1 == 0 {
                let op = e >> 1
                if let after = spec.step(state, op) {
                    let h = (hash.0 ^ keys[op].0, hash.1 ^ keys[op].1)
                    if cache.insert(SearchKey(a: h.0, b: h.1, state: after)).inserted {
                        stack.append((e, state))
                        state = after
                        hash = h
                        lift(e)
                        e = next[head]
                        continue
                    }
                }
                e = next[e]
            } else {
                guard let top = stack.popLast() else { return .notLinearizable }
                state = top.state
                hash = (hash.0 ^ keys[top.call >> 1].0, hash.1 ^ keys[top.call >> 1].1)
                unlift(top.call)
                e = next[top.call]
            }
        }
    }
}

struct SearchKey<State: Hashable>: Hashable {
    var a: UInt64
    var b: UInt64
    var state: State
}
