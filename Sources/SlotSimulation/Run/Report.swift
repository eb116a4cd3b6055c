import Foundation
import SlotScheduler

/// The outcome of a run, for people (``summary``) and machines (JSON via `--report`).
///
/// In deterministic mode it holds nothing that depends on the machine or the clock, so the same
/// scenario and seed give a byte-identical report.
public struct Report: Codable, Sendable, Equatable {
    public var scenario: String
    public var file: String
    public var seed: UInt64
    public var mode: String
    public var threads: Int?
    public var steps: Int
    public var operations: Int
    public var accepted: Int
    public var refused: Int
    /// Refusals per reason, most frequent first, ties by name.
    public var refusedByReason: [ReasonCount]
    public var cancelled: Int
    public var displaced: Int
    public var repeats: Int
    public var queries: Int
    public var availabilityChanges: Int
    /// The lifecycle commands accepted (holds, confirms, releases, reschedules, any-socket
    /// bookings); absent when the run made none.
    public var lifecycle: Lifecycle?
    public var peakContention: Contention?
    public var invariants: [InvariantResult]
    public var linearizability: Linearizability?
    public var expectations: [ExpectationResult]
    public var failures: [Failure]
    public var timing: Timing?
    public var provenance: Provenance?
    public var attribution: String?
    /// `pass`, `invariant broken` or `not linearizable`.
    public var verdict: String
    /// Threads mode: operations without a definite outcome, and how the final state resolved them.
    public var indeterminate: Indeterminate?

    public struct ReasonCount: Codable, Sendable, Equatable {
        public var reason: String
        public var count: Int
    }
    public struct Contention: Codable, Sendable, Equatable {
        /// The slot with the most reservation attempts.
        public var slot: String
        public var attempts: Int
        public var accepted: Int
        /// Threads mode: most requests for that slot in flight at once.
        public var concurrent: Int?
        /// Threads mode: most requests of any kind in flight at once.
        public var inFlight: Int?
    }
    public struct InvariantResult: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        /// `pass`, `fail` or `not checked`.
        public var status: String
        public var violations: Int

        /// One result per ``Invariant``, in order, from each one's count of `violations`:
        /// `not checked` for `unchecked` (the one the mode cannot decide) and for those the
        /// scenario's `expected` list leaves out; else `pass` or `fail`.
        static func all(violations: [Int], expected: [String]?, unchecked: Invariant) -> [InvariantResult] {
            let wanted = Set(expected ?? Invariant.allCases.map(\.rawValue))
            return Invariant.allCases.enumerated().map { i, invariant in
                InvariantResult(
                    id: invariant.rawValue, name: invariant.name,
                    status: invariant == unchecked || !wanted.contains(invariant.rawValue)
                        ? "not checked" : (violations[i] > 0 ? "fail" : "pass"),
                    violations: violations[i])
            }
        }
    }
    public struct Linearizability: Codable, Sendable, Equatable {
        /// `linearizable`, `not linearizable`, `unknown`, or `sequential` (deterministic mode).
        public var status: String
        public var partitions: Int
        public var unknownPartitions: Int
        public var failingPartition: String?
    }
    public struct ExpectationResult: Codable, Sendable, Equatable {
        public var what: String
        public var expected: String
        public var actual: String
        public var pass: Bool
    }
    public struct Failure: Codable, Sendable, Equatable {
        public var invariant: String
        public var seq: Int
        public var message: String
        public var nearby: [String]
        public var reproduce: String
    }
    public struct Timing: Codable, Sendable, Equatable {
        public var seconds: Double
        public var operationsPerSecond: Double
        public var p50Microseconds: Double?
        public var p99Microseconds: Double?
    }

    /// Accepted lifecycle commands (their refusals are in ``refused`` and ``refusedByReason``).
    public struct Lifecycle: Codable, Sendable, Equatable {
        public var holds = 0
        public var confirmed = 0
        public var releasedHolds = 0
        public var rescheduled = 0
        public var anySocket = 0
        public var checkedIn = 0
        /// Check-outs accepted; written only when some were (a report without any reads as before).
        public var checkedOut = 0
        /// Accepted check-outs that left their resource elsewhere (a relocation); written only when
        /// some did.
        public var relocated = 0

        public init() {}

        enum CodingKeys: String, CodingKey {
            case holds, confirmed, releasedHolds, rescheduled, anySocket, checkedIn, checkedOut, relocated
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            holds = try c.decode(Int.self, forKey: .holds)
            confirmed = try c.decode(Int.self, forKey: .confirmed)
            releasedHolds = try c.decode(Int.self, forKey: .releasedHolds)
            rescheduled = try c.decode(Int.self, forKey: .rescheduled)
            anySocket = try c.decode(Int.self, forKey: .anySocket)
            checkedIn = try c.decodeIfPresent(Int.self, forKey: .checkedIn) ?? 0
            checkedOut = try c.decodeIfPresent(Int.self, forKey: .checkedOut) ?? 0
            relocated = try c.decodeIfPresent(Int.self, forKey: .relocated) ?? 0
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(holds, forKey: .holds)
            try c.encode(confirmed, forKey: .confirmed)
            try c.encode(releasedHolds, forKey: .releasedHolds)
            try c.encode(rescheduled, forKey: .rescheduled)
            try c.encode(anySocket, forKey: .anySocket)
            try c.encode(checkedIn, forKey: .checkedIn)
            if checkedOut != 0 { try c.encode(checkedOut, forKey: .checkedOut) }
            if relocated != 0 { try c.encode(relocated, forKey: .relocated) }
        }

        /// `nil` when all are zero, so a report of a run without them reads as before.
        var orNil: Lifecycle? { self == Lifecycle() ? nil : self }
    }

    public static let countKeys: Set<String> = [
        "operations", "accepted", "refused", "cancelled", "displaced", "repeats", "queries", "availabilityChanges",
        "steps", "checkedIn", "checkedOut", "relocated",
    ]

    func count(_ key: String) -> Int {
        switch key {
        case "operations": operations
        case "accepted": accepted
        case "refused": refused
        case "cancelled": cancelled
        case "displaced": displaced
        case "repeats": repeats
        case "queries": queries
        case "availabilityChanges": availabilityChanges
        case "steps": steps
        case "checkedIn": lifecycle?.checkedIn ?? 0
        case "checkedOut": lifecycle?.checkedOut ?? 0
        case "relocated": lifecycle?.relocated ?? 0
        default:
            refusedByReason.first { "refused.\($0.reason)" == key }?.count ?? 0
        }
    }

    public var passed: Bool { verdict == "pass" }

    /// Process exit code: 0 pass, 1 invariant broken or expectation failed, 2 not linearizable.
    public var exitCode: Int32 {
        switch verdict {
        case "pass": 0
        case "not linearizable": 2
        default: 1
        }
    }

    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// A summary a person can read at a glance.
    public var summary: String {
        var lines: [String] = []
        lines.append("scenario \(scenario) (\(file)), seed \(seed), \(mode)\(threads.map { " ×\($0)" } ?? "")")
        lines.append(
            "  steps \(steps), operations \(operations): accepted \(accepted), refused \(refused), cancelled \(cancelled), displaced \(displaced), repeats \(repeats), queries \(queries), availability changes \(availabilityChanges)"
        )
        if let l = lifecycle {
            lines.append(
                "  lifecycle: holds \(l.holds), confirmed \(l.confirmed), released holds \(l.releasedHolds), rescheduled \(l.rescheduled), any-socket bookings \(l.anySocket), checked in \(l.checkedIn)"
                    + (l.checkedOut > 0 ? ", checked out \(l.checkedOut)" : "")
                    + (l.relocated > 0 ? " (\(l.relocated) left elsewhere)" : ""))
        }
        if !refusedByReason.isEmpty {
            lines.append(
                "  refused by reason: " + refusedByReason.map { "\($0.reason) \($0.count)" }.joined(separator: ", "))
        }
        if let c = peakContention {
            var text = "  peak contention: \(c.attempts) attempts on \(c.slot) (\(c.accepted) accepted)"
            if let n = c.concurrent { text += ", \(n) at once" }
            if let n = c.inFlight { text += "; \(n) requests in flight at most" }
            lines.append(text)
        }
        if let t = timing {
            var text = String(format: "  time %.3f s, %.0f ops/s", t.seconds, t.operationsPerSecond)
            if let p50 = t.p50Microseconds, let p99 = t.p99Microseconds {
                text += String(format: ", latency p50 %.1f µs, p99 %.1f µs", p50, p99)
            }
            lines.append(text)
        }
        if let i = indeterminate { lines.append("  \(i.summary)") }
        lines.append(
            "  invariants: "
                + invariants.map { "\($0.id) \($0.status == "pass" ? "ok" : $0.status)" }.joined(separator: ", "))
        if let l = linearizability {
            lines.append(
                "  linearizability: \(l.status) (\(l.partitions) partitions\(l.unknownPartitions > 0 ? ", \(l.unknownPartitions) unknown" : ""))"
            )
        }
        let failed = expectations.filter { !$0.pass }
        if !expectations.isEmpty {
            lines.append("  expectations: \(expectations.count - failed.count)/\(expectations.count) met")
        }
        for e in failed { lines.append("    ✗ \(e.what): expected \(e.expected), got \(e.actual)") }
        if let p = provenance {
            lines.append(
                "  imported from \(p.source): \(p.rowsRead) rows, \(p.stepsWritten) steps; skipped "
                    + (p.skipped.isEmpty
                        ? "none"
                        : p.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")))
        }
        for f in failures.prefix(5) {
            lines.append("  FAIL \(f.invariant) at operation \(f.seq): \(f.message)")
            for line in f.nearby { lines.append("    \(line)") }
            lines.append("  reproduce: \(f.reproduce)")
        }
        lines.append("verdict: \(verdict.uppercased())")
        return lines.joined(separator: "\n")
    }
}

extension Report {
    /// Adds the count expectations and sets the verdict.
    mutating func finish(expectations: Expectations?) {
        for key in (expectations?.counts ?? [:]).keys.sorted() {
            guard let range = expectations?.counts?[key] else { continue }
            let n = count(key)
            self.expectations.append(
                .init(what: "count \(key)", expected: range.description, actual: String(n), pass: range.contains(n)))
        }
        let broken = invariants.contains { $0.status == "fail" && $0.id != "I11" }
        if broken {
            verdict = "invariant broken"
        } else if self.expectations.contains(where: { !$0.pass }) {
            // The rules held; the scenario's own expectation (a step's outcome, a count) did not.
            verdict = "expectation failed"
        } else if linearizability?.status == "not linearizable" {
            verdict = "not linearizable"
        } else {
            verdict = "pass"
        }
    }
}
