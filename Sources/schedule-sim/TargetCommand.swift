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
    func runTarget(_ target: String, adapter path: String, prepared: PreparedScenario) async throws {
        let adapter: Adapter
        do { adapter = try Adapter.load(path: path) } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(65)
        }
        let secret = try readSecret(adapter: adapter, path: path)
        var run = TargetRun(
            prepared: prepared, adapter: adapter, target: target.hasSuffix("/") ? String(target.dropLast()) : target,
            secret: secret, concurrency: concurrency, seed: seed ?? prepared.scenario.seed,
            operations: operations ?? max(1, prepared.operations))
        run.rules = check == "rules"
        let outcome: TargetRun.Outcome
        do { outcome = try await run.run() } catch {
            throw StoreFailure("\(error)").exit()
        }
        if let history {
            let text = outcome.history.map(\.jsonLine).joined(separator: "\n") + "\n"
            try writeAtomically(Data(text.utf8), to: history)
        }
        var findings = SafetyCheck.check(
            history: outcome.history, listed: outcome.listed, limit: prepared.rules.policy.maxUpcomingBookings)
        var rules: RulesCheck.Result?
        if run.rules {
            rules = RulesCheck.check(
                history: outcome.history, before: outcome.before, listed: outcome.listed, prepared: prepared,
                shiftDays: outcome.shiftDays, adapter: adapter, clock: outcome.clock)
            findings += rules?.findings ?? []
        }
        let summary = Self.summary(
            outcome, target: target, adapter: adapter, concurrency: concurrency, findings: findings, rules: rules)
        print(summary)
        if let html {
            let verdict = findings.isEmpty ? "PASS" : "FAIL"
            let title = "schedule-sim: \(prepared.scenario.name) against \(target), \(verdict)"
            let page = FindingsPage.html(title: title, summary: summary, findings: findings)
            try writeAtomically(Data(page.utf8), to: html)
        }
        if findings.contains(where: { !$0.invariant.hasPrefix("linearizable") }) { throw ExitCode(1) }
        if !findings.isEmpty { throw ExitCode(2) }
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
        guard let file, let data = FileManager.default.contents(atPath: file) else {
            FileHandle.standardError.write(
                Data("error: the adapter signs tokens: give --secret FILE (or auth.secretFile)\n".utf8))
            throw ExitCode(66)
        }
        return Array(data.reversed().drop { Character(UnicodeScalar($0)).isWhitespace }.reversed())
    }

    static func summary(
        _ outcome: TargetRun.Outcome, target: String, adapter: Adapter, concurrency: Int,
        findings: [SafetyCheck.Finding], rules: RulesCheck.Result? = nil
    ) -> String {
        let completions = outcome.history.filter { $0.kind != .invoke }
        func count(_ kind: TargetEvent.Kind) -> Int { completions.filter { $0.kind == kind }.count }
        var lines = [
            "target: \(target) (\(adapter.name ?? "adapter")), calendar shifted by \(outcome.shiftDays) days",
            String(
                format: "%d operations in %.2f s (%.0f/s), %d in flight: %d ok, %d fail, %d info (unknown)",
                completions.count, outcome.seconds, Double(completions.count) / max(outcome.seconds, 1e-9), concurrency,
                count(.ok), count(.fail), count(.info)),
            "read back: \(outcome.listed.count) bookings of \(outcome.users) users, \(outcome.listed.filter(\.live).count) live",
            "checks (safety): no double booking, per-user limit, acknowledged bookings kept, acknowledged cancels applied, idempotent retries",
        ]
        if let rules {
            lines.append(
                "checks (rules): bookable when made, refusals justified, linearizable per slot and per user (\(rules.partitions) partitions, \(rules.unknownPartitions) undecided within the search budget; clock ±\(String(format: "%.1f", outcome.clock.tolerance)) s)"
            )
        }
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
        return lines.joined(separator: "\n")
    }
}
