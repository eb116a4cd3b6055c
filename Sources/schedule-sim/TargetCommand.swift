import ArgumentParser
import Foundation
import SlotScheduler
import SlotSimulation

extension ScheduleSim.Run {
    /// `run --target URL --adapter FILE`: drives the API (``TargetRun``), checks the history
    /// (``SafetyCheck``; with `--check rules`, ``RulesCheck`` too), prints each finding with the
    /// part of the history that shows it (and with `--html FILE` draws it, ``FindingsPage``), and
    /// exits 1 when an invariant broke, 2 when the only findings are histories no order of the
    /// rules explains (69 when the target cannot be used).
    /// The instances `--target` names: its comma-separated URLs, each without a trailing slash.
    static func targets(_ target: String) -> [String] {
        target.split(separator: ",", omittingEmptySubsequences: false).map {
            let url = $0.trimmingCharacters(in: .whitespaces)
            return url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }

    /// What makes `url` no target to call, or nil: a scheme other than http or https, no host,
    /// a port outside 1...65535 (the HTTP client trapped on 99999).
    static func targetProblem(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return "\(url.debugDescription) is not an http:// or https:// URL" }
        guard let host = parts.host, !host.isEmpty else { return "\(url.debugDescription) names no host" }
        if let port = parts.port, !(1...65535).contains(port) {
            return "\(url.debugDescription): port \(port) is not 1...65535"
        }
        return nil
    }

    func runTarget(_ target: String, adapter path: String, prepared: PreparedScenario) async throws {
        let adapter = try loadAdapter(path)
        let secret = try readSecret(adapter: adapter, path: path)
        var run = TargetRun(
            prepared: prepared, adapter: adapter, targets: Self.targets(target), secret: secret,
            concurrency: concurrency, seed: seed ?? prepared.scenario.seed,
            operations: operations ?? max(1, prepared.operations))
        run.rules = check == "rules"
        let outcome: TargetRun.Outcome
        do { outcome = try await run.run() } catch {
            throw StoreFailure("\(error)").exit()
        }
        let record = TargetRecord(
            setup: .init(
                scenario: prepared.scenario.name, target: target, shiftDays: outcome.shiftDays, clock: outcome.clock),
            history: outcome.history, before: outcome.before, listed: outcome.listed, places: outcome.places)
        if let history { try writeAtomically(Data(record.text.utf8), to: history, as: .history) }
        let completed = outcome.history.count { $0.kind != .invoke }
        let speed = String(
            format: "%d operations in %.2f s (%.0f/s), %d in flight", completed, outcome.seconds,
            Double(completed) / max(outcome.seconds, 1e-9), concurrency)
        try judgeTarget(
            record, prepared: prepared, adapter: adapter, rules: run.rules, html: html,
            heading: [
                "target: \(target) (\(adapter.name ?? "adapter")), calendar shifted by \(outcome.shiftDays) days",
                speed,
            ])
    }

    /// The adapter's HS256 secret: `--secret`, else its `secretFile` beside the adapter.
    private func readSecret(adapter: Adapter, path: String) throws -> [UInt8]? {
        guard adapter.auth?.type == "jwt-hs256" else { return nil }
        let file =
            secret
            ?? adapter.auth?.secretFile.map {
                $0.hasPrefix("/")
                    ? $0 : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent($0).path
            }
        guard let file else {
            FileHandle.standardError.write(
                Data("error: the adapter signs tokens: give --secret FILE (or auth.secretFile)\n".utf8))
            throw ExitCode(66)
        }
        let secret: [UInt8]
        do {
            secret = Array(
                try InputFile.contents(file, maxBytes: 64 << 10).reversed()
                    .drop { Character(UnicodeScalar($0)).isWhitespace }.reversed())
        } catch {
            FileHandle.standardError.write(Data("error: the adapter's secret: \(error)\n".utf8))
            throw ExitCode(66)
        }
        guard !secret.isEmpty else {
            FileHandle.standardError.write(Data("error: the adapter's secret: \(file) is empty\n".utf8))
            throw ExitCode(66)
        }
        return secret
    }
}

/// Prints a run's summary and findings, draws them with `--html`, and exits 1 when an
/// invariant broke, 2 when the only findings are partitions no order of the rules explains.
func judgeTarget(
    _ record: TargetRecord, prepared: PreparedScenario, adapter: Adapter, rules: Bool, html: String?,
    heading: [String]
) throws {
    let judged = TargetJudgement(record, prepared: prepared, adapter: adapter, rules: rules)
    let summary = (heading + judged.lines).joined(separator: "\n")
    print(summary)
    if let html {
        let verdict = judged.findings.isEmpty ? "PASS" : "FAIL"
        let title = "schedule-sim: \(prepared.scenario.name) against \(record.setup.target), \(verdict)"
        let page = FindingsPage.html(title: title, summary: summary, findings: judged.findings)
        try writeAtomically(Data(page.utf8), to: html, as: .page)
    }
    if judged.exitCode != 0 { throw ExitCode(judged.exitCode) }
}

/// `--target URL --adapter FILE`: the adapter, or exit 65 naming what is wrong with it.
func loadAdapter(_ path: String) throws -> Adapter {
    do { return try Adapter.load(path: path) } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode(65)
    }
}

/// The checks of a run against a target, over its record: their findings, the summary's lines,
/// and the exit code.
struct TargetJudgement {
    var findings: [SafetyCheck.Finding]
    var lines: [String]

    init(_ record: TargetRecord, prepared: PreparedScenario, adapter: Adapter, rules: Bool) {
        let started = ContinuousClock.now
        findings = SafetyCheck.check(
            history: record.history, listed: record.listed, limit: prepared.rules.policy.maxUpcomingBookings)
        if !record.places.isEmpty {
            findings += SafetyCheck.checkPlaces(history: record.history, places: record.places)
        }
        var result: RulesCheck.Result?
        if rules {
            result = RulesCheck.check(
                history: record.history, before: record.before, listed: record.listed, prepared: prepared,
                shiftDays: record.setup.shiftDays, adapter: adapter, clock: record.setup.clock)
            findings += result?.findings ?? []
        }
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        let completions = record.history.filter { $0.kind != .invoke }
        func count(_ kind: TargetEvent.Kind) -> Int { completions.count { $0.kind == kind } }
        lines = [
            "answers: \(count(.ok)) ok, \(count(.fail)) fail, \(count(.info)) info (unknown)",
            "read back: \(record.listed.count) bookings of \(Set(record.listed.map(\.user)).count) users, \(record.listed.count(where: \.live)) live",
            "checks (safety): no double booking, per-user limit, acknowledged bookings kept, acknowledged cancels applied, idempotent retries"
                + (record.places.isEmpty
                    ? "" : ", \(SafetyCheck.leftWhereTheLastRideEnded) (\(record.places.count) stations read)"),
        ]
        if record.places.isEmpty,
            record.history.contains(where: { $0.operation == "checkOut" && $0.leftAt != nil && $0.kind == .ok })
        {
            lines.append(
                "not checked: \(SafetyCheck.leftWhereTheLastRideEnded) (check-outs moved vehicles, and the adapter "
                    + "names no answers.places to read where the stations are)")
        }
        if let result {
            lines.append(
                "checks (rules): bookable when made, refusals justified, check-in window, check-out after check-in, access codes, cutoffs, linearizable per slot, per user and per booking (\(result.partitions) partitions, \(result.unknownPartitions) undecided within the search budget\(result.skippedPartitions > 0 ? ", \(result.skippedPartitions) not searched after a hold or move of unknown outcome" : ""); clock ±\(String(format: "%.1f", record.setup.clockTolerance)) s)"
            )
        }
        lines.append(
            String(
                format: "checked %d operations in %.3f s", completions.count,
                Double(seconds) + Double(attoseconds) / 1e18))
        // At most three findings of each invariant, each with the history that shows it.
        var shown: [String: Int] = [:]
        for finding in findings {
            shown[finding.invariant, default: 0] += 1
            guard shown[finding.invariant, default: 0] <= 3 else { continue }
            lines.append("FINDING \(finding.invariant): \(finding.explanation)")
            lines += finding.events.map { "  \($0.line)" }
        }
        for (invariant, count) in shown.sorted(by: { $0.key < $1.key }) where count > 3 {
            lines.append("(\(count - 3) more findings of \(invariant))")
        }
        lines.append("verdict: \(findings.isEmpty ? "PASS" : "FAIL (\(findings.count) findings)")")
    }

    /// 1 when an invariant broke, 2 when the only findings are of linearizability, else 0.
    var exitCode: Int32 {
        if findings.contains(where: { !$0.invariant.hasPrefix("linearizable") }) { return 1 }
        return findings.isEmpty ? 0 : 2
    }
}

extension ScheduleSim {
    struct VerifyTarget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-target",
            abstract: "Check a run against a booking API again, from its record.",
            discussion: """
                Reads the record `run --target URL --adapter FILE --history RECORD` wrote (the run's \
                setup, its history and the bookings read back) and runs the checks again, without the \
                API: with another --check level, a newer schedule-sim, or to draw --html. Exit codes as \
                for `run --target`; 65 for a record, scenario or adapter that cannot be used.
                """)

        @Argument(help: "The record: a file written by `run --target … --history FILE`.")
        var record: String

        @Option(help: "The scenario file the run used.")
        var scenario: String

        @Option(help: "The adapter file the run used (for the refusal reasons' names).")
        var adapter: String

        @Option(help: "The checks: `safety` or `rules` (rules needs a run made with --check rules).")
        var check: String = "safety"

        @Option(help: "Write the findings' timelines as an HTML page to this file.")
        var html: String?

        func validate() throws {
            guard check == "safety" || check == "rules" else {
                throw ValidationError("--check \(check): a target is checked with safety or rules")
            }
        }

        func run() async throws {
            try checkOutputs([(html, .page)], inputs: [record, scenario, adapter])
            let prepared = try load(scenario, seed: nil, operations: nil)
            let adapter = try loadAdapter(adapter)
            let loaded: TargetRecord
            do { loaded = try TargetRecord.read(path: record) } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(65)
            }
            let heading = [
                "record: \(record), a run of \(loaded.setup.scenario) against \(loaded.setup.target), calendar shifted by \(loaded.setup.shiftDays) days"
            ]
            try judgeTarget(
                loaded, prepared: prepared, adapter: adapter, rules: check == "rules", html: html, heading: heading)
        }
    }
}
