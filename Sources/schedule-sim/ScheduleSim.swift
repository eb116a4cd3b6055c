import ArgumentParser
import Foundation
import SlotScheduler
import SlotSimulation

@main
struct ScheduleSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule-sim",
        abstract: "Replays many concurrent users against the booking rules and proves no double-booking.",
        discussion: """
            A scenario file (Scenarios/*.json, see Scenarios/README.md) describes stations, rules, a clock, \
            users and a workload. `run` plays it deterministically from its seed (the default) or with real \
            threads (--threads N), checks the invariants I1-I6, I9, I11, I12 and the scenario's expectations, \
            and prints a summary.

            Exit codes: 0 pass, 1 an invariant or expectation broke, 2 history not linearizable, \
            64 usage error, 65 bad scenario data, 66 an input file cannot be read, 69 the database store \
            cannot be reached, 73 an output file cannot be written (a directory, a device, a fifo, a \
            missing folder, a file schedule-sim did not write: refused before the run; only an empty \
            file or this tool's own output of that kind is ever replaced), \
            130/143 interrupted by SIGINT/SIGTERM (partial output files are removed).

            Examples:
              schedule-sim run Scenarios/rush-hour.json
              schedule-sim run Scenarios/city-wide.json --threads 4 --report report.json
              schedule-sim run Scenarios/rush-hour.json --store postgres://app@127.0.0.1/bookings?schema=sim
              schedule-sim check Scenarios/*.json
              schedule-sim conform --store journal:/tmp/conform   (a store held to the reference model)
              schedule-sim import ../shared/data/dundee-charging-sessions-2018-06-06_2018-09-06.csv
              schedule-sim import sessions.csv --output s.json --start "Start Date" --station Site --socket Port \
                --time-zone America/Los_Angeles   (see import --help)
            """,
        subcommands: [
            Run.self, VerifyStore.self, VerifyTarget.self, Check.self, Import.self, Conform.self, Database.self,
            CatalogCommand.self,
        ],
        defaultSubcommand: nil)
}

/// `--seed`: an integer 0...2^64-1 (a negative one is named, not taken for an option).
func parseSeed(_ text: String) throws -> UInt64 {
    guard let seed = UInt64(text) else {
        throw ValidationError("--seed must be an integer 0...18446744073709551615; found \(text)")
    }
    return seed
}

/// `--operations`: 0...the scenario limit.
func parseOperations(_ text: String) throws -> Int {
    guard let n = Int(text), (0...ScenarioLimits.maxOperations).contains(n) else {
        throw ValidationError("--operations must be an integer 0...\(ScenarioLimits.maxOperations); found \(text)")
    }
    return n
}

/// Prints a scenario error and exits 65.
func refuse(_ error: ScenarioError) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    return ExitCode(65)
}

func load(_ path: String, seed: UInt64? = nil, operations: Int? = nil) throws -> PreparedScenario {
    let result = Result { () throws(ScenarioError) -> PreparedScenario in
        var scenario = try Scenario.load(path: path)
        if let seed { scenario.seed = seed }
        if let operations {
            let resized = try scenario.resized(operations: operations, file: path)
            scenario = resized.scenario
            if resized.countsDropped {
                FileHandle.standardError.write(
                    Data(
                        "note: --operations \(operations) resized the workload: the scenario's count expectations are not checked\n"
                            .utf8))
            }
        }
        return try scenario.prepare(file: path)
    }
    switch result {
    case .success(let prepared): return prepared
    case .failure(let error): throw refuse(error)
    }
}

/// Prints an output file's problem and exits 73 (cannot create the output file).
func refuse(_ error: SimulationIOError) -> ExitCode {
    FileHandle.standardError.write(Data("error: cannot write \(error.path): \(error.problem)\n".utf8))
    return ExitCode(73)
}

/// Checks the output files before a run: each can be written without replacing anything but an
/// empty file or one schedule-sim wrote as that kind, no two are the same file, none is one of
/// `inputs` and none is in the journal directory of `store` (exit 73 if not).
func checkOutputs(
    _ paths: [(path: String?, kind: OutputKind)], inputs: [String], store: String? = nil
) throws(ExitCode) {
    do {
        var outputs: [OutputFile] = []
        for case (let path?, let kind) in paths { outputs.append(try OutputFile.check(path, kind: kind)) }
        var owned: [String] = []
        if let store, case .journal(let directory)? = try? StoreChoice(store) { owned.append(directory) }
        try OutputFile.checkDistinct(outputs, inputs: inputs, ownedFolders: owned)
    } catch { throw refuse(error) }
}

/// Writes `data` (a `kind`) through a partial file beside `path` (see `OutputFile`); exit 73 if it
/// cannot.
func writeAtomically(_ data: Data, to path: String, as kind: OutputKind) throws(ExitCode) {
    do { try OutputFile.check(path, kind: kind).write(data) } catch { throw refuse(error) }
}

func shellQuote(_ s: String) -> String {
    s.allSatisfy({ $0.isLetter || $0.isNumber || "/._-=:".contains($0) })
        ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// A store that could not be reached or used: printed, exit 69 (service unavailable).
struct StoreFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
    func exit() -> ExitCode {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        return ExitCode(69)
    }
}

extension ScheduleSim {
    struct VerifyStore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify-store",
            abstract: "Check several processes' histories against a database store's final state.",
            discussion: """
                After N `run --store URL --process-index i --process-count N --history hi.jsonl` processes \
                have finished, reads every booking from the store and every history, and checks I1-I6, I9, \
                I12 and linearizability (I11) per slot and per user across all processes. Pass the same \
                scenario, --seed and --operations as the runs. Exit codes as for `run`; 69 if the store \
                cannot be reached.
                """)

        @Option(help: "The store: a postgres:// URL, `env` (SLOTSCHEDULER_DATABASE_URL) or journal:DIR.")
        var store: String

        @Option(help: "The scenario file the processes ran.")
        var scenario: String

        @Option(help: "A history file written by one process; repeat for each process.")
        var history: [String]

        @Option(parsing: .unconditional, help: "The --seed the processes ran with, if any.", transform: parseSeed)
        var seed: UInt64?

        @Option(
            parsing: .unconditional, help: "The --operations the processes ran with, if any.",
            transform: parseOperations)
        var operations: Int?

        @Option(help: "Write the report as JSON to this file.")
        var report: String?

        @Flag(help: "Print only the verdict line when the run passes (a failing run prints its whole summary).")
        var quiet = false

        func validate() throws {
            _ = try StoreChoice(store)
            if history.isEmpty { throw ValidationError("give at least one --history FILE") }
        }

        func run() async throws {
            PartialFiles.shared.removeOnInterrupt()
            try checkOutputs([(report, .report)], inputs: [scenario] + history, store: store)
            let prepared = try load(scenario, seed: seed, operations: operations)
            let opened = try await openStore(store, prepared: prepared)
            let finalBookings: [Booking]
            do { finalBookings = try await opened.service.allBookingsByID() } catch {
                await opened.close()
                throw StoreFailure("cannot read the bookings: \(error)").exit()
            }
            await opened.close()
            let result: Report
            do {
                result = try Simulator.verifyProcesses(
                    prepared, historyPaths: history, finalBookings: finalBookings,
                    options: RunOptions(reproduce: "schedule-sim verify-store (see the runs' command lines)"))
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(65)
            }
            if let report { try writeAtomically(result.json(), to: report, as: .report) }
            print(quiet && result.passed ? "verdict: \(result.verdict.uppercased())" : result.summary)
            if result.exitCode != 0 { throw ExitCode(result.exitCode) }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a scenario and check the invariants.",
            discussion: """
                Deterministic mode (default) drives the single-threaded Ledger from the scenario's seed: \
                the same scenario and seed give a byte-identical report and history. --threads N runs N \
                concurrent workers against one shared Scheduler (any BookingService), records \
                invoke/complete times and checks linearizability per slot and per user.
                """)

        @Argument(help: "The scenario file (JSON).")
        var scenario: String

        @Option(parsing: .unconditional, help: "Use this seed instead of the scenario's.", transform: parseSeed)
        var seed: UInt64?

        @Option(help: "Run N concurrent workers against one shared scheduler instead of the deterministic mode.")
        var threads: Int?

        @Option(
            parsing: .unconditional,
            help:
                "Override the workload's number of operations; the scenario's count expectations are then not checked.",
            transform: parseOperations)
        var operations: Int?

        @Option(help: "Write the report as JSON to this file.")
        var report: String?

        @Option(
            help: """
                Write the history as JSON lines to this file, streamed as the run goes (in threads mode an \
                invoke and a return line per operation; a run killed with SIGKILL leaves FILE.PID.N.partial, \
                readable up to its last complete line, for verify-store).
                """)
        var history: String?

        @Option(
            help: """
                Write a self-contained HTML page of the run to this file: the contended slots as a heat map, \
                accepted and refused over the run by reason, and in threads mode the timeline of the most \
                contended slot's calls. With --target: each finding's history on a timeline, one lane per worker.
                """)
        var html: String?

        @Flag(help: "Run twice and check that the report and history are byte-identical.")
        var checkDeterminism = false

        @Option(help: "On failure, write a smaller scenario that still fails to this file.")
        var shrink: String?

        @Option(
            help: """
                Where bookings are kept in threads mode: `memory` (the in-process Scheduler; behind a \
                read-write lock that a catalog change takes alone when check-outs move resources), a \
                postgres://user@host[:port]/database[?schema=name] URL, or `env` (the URL in \
                SLOTSCHEDULER_DATABASE_URL), or journal:DIR (the durable journal store in directory DIR, \
                one process at a time). A database or journal store implies threads mode (--threads \
                defaults to the workload's concurrency, else 4); a database store needs a build with \
                `--traits Postgres`.
                """)
        var store: String = "memory"

        @Option(help: "With --process-count: which process this is (0-based).")
        var processIndex: Int = 0

        @Option(
            help: """
                Run this process's share of the workload as one of N processes driving the same database \
                store; needs --history. The checks then run once, over every history: see verify-store.
                """)
        var processCount: Int = 1

        @Flag(
            help: """
                Continue on a store that already holds bookings (a journal or database left by a killed \
                run): run the workload and write --history without checking it; then check with \
                verify-store and the history of every run against that store.
                """)
        var resume = false

        @Option(help: "Scheduler shards in threads mode.")
        var shards: Int = 16

        @Flag(help: "Print only the verdict line when the run passes (a failing run prints its whole summary).")
        var quiet = false

        @Option(
            help: """
                Drive a live booking API at this base URL (http://host:port) instead of a store, through \
                --adapter, and check its history (see `Checking a booking API` in the DocC catalog). \
                Several URLs, comma-separated, are instances of one API on one ledger: the workers \
                alternate between them.
                """)
        var target: String?

        @Option(help: "With --target: the adapter file (JSON, version 1) saying how to call the API.")
        var adapter: String?

        @Option(help: "With --target: the HS256 secret for an adapter whose auth is jwt-hs256 (else its secretFile).")
        var secret: String?

        @Option(help: "With --target: requests in flight at once (default 256).")
        var concurrency: Int = 256

        @Option(
            help: """
                With --target: the checks, `safety` (the invariants any booking API must keep) or `rules` \
                (those, and linearizability against SlotScheduler's rules, for an API that claims them).
                """)
        var check: String = "safety"

        func validate() throws {
            if target != nil {
                guard adapter != nil else { throw ValidationError("--target needs --adapter FILE") }
                guard store == "memory", threads == nil, !checkDeterminism, shrink == nil, processCount == 1 else {
                    throw ValidationError(
                        "--target drives the API itself: no --store, --threads, --shrink or processes")
                }
                guard (1...4096).contains(concurrency) else { throw ValidationError("--concurrency must be 1...4096") }
                guard let targets = target.map(Self.targets), !targets.contains(where: \.isEmpty),
                    targets.count <= concurrency
                else {
                    throw ValidationError(
                        "--target: one URL, or several comma-separated, none empty and no more than --concurrency")
                }
                if let problem = targets.lazy.compactMap(Self.targetProblem).first {
                    throw ValidationError("--target: \(problem)")
                }
            }
            guard check == "safety" || check == "rules" else {
                throw ValidationError("--check \(check): a target is checked with safety or rules")
            }
            if let threads, !(1...1024).contains(threads) {
                throw ValidationError("--threads must be 1...1024")
            }
            if checkDeterminism && threads != nil {
                throw ValidationError("--check-determinism applies to the deterministic mode only")
            }
            if !(1...4096).contains(shards) { throw ValidationError("--shards must be 1...4096") }
            if !(1...1024).contains(processCount) { throw ValidationError("--process-count must be 1...1024") }
            if !(0..<processCount).contains(processIndex) {
                throw ValidationError("--process-index must be 0...\(processCount - 1)")
            }
            if store != "memory" {
                if try StoreChoice(store).isJournal, processCount > 1 {
                    throw ValidationError("--process-count needs a database --store; a journal is one process's")
                }
                if checkDeterminism { throw ValidationError("--check-determinism does not apply to a database store") }
            }
            if resume {
                if store == "memory" { throw ValidationError("--resume needs a journal or database --store") }
                if history == nil { throw ValidationError("--resume needs --history FILE (for verify-store)") }
                if shrink != nil || html != nil { throw ValidationError("--resume writes only the history") }
            }
            if processCount > 1 {
                if store == "memory" { throw ValidationError("--process-count needs a database --store") }
                if history == nil { throw ValidationError("--process-count needs --history FILE (for verify-store)") }
                if shrink != nil { throw ValidationError("--shrink does not apply to one of several processes") }
            }
        }

        /// Threads: as given, else the workload's concurrency (or 4) with a database store.
        func threadCount(_ prepared: PreparedScenario) -> Int? {
            threads ?? (store == "memory" ? nil : min(1024, max(1, prepared.scenario.workload?.concurrency ?? 4)))
        }

        var reproduce: String {
            var parts = ["swift", "run", "-c", "release", "schedule-sim", "run", shellQuote(scenario)]
            if let seed { parts += ["--seed", String(seed)] }
            if let threads { parts += ["--threads", String(threads)] }
            if let operations { parts += ["--operations", String(operations)] }
            if store != "memory" { parts += ["--store", store.hasPrefix("postgres") ? "URL" : store] }
            return parts.joined(separator: " ")
        }

        func run() async throws {
            PartialFiles.shared.removeOnInterrupt()
            try checkOutputs(
                [(history, .history), (report, .report), (shrink, .scenario), (html, .page)],
                inputs: [scenario] + (adapter.map { [$0] } ?? []), store: store)
            let prepared = try load(scenario, seed: seed, operations: operations)
            if let target, let adapter {
                try await runTarget(target, adapter: adapter, prepared: prepared)
                return
            }
            if store == "memory" {
                try await run(prepared, service: nil)
                return
            }
            if processCount > 1, let (path, value) = prepared.notWorkloadOnly {
                throw refuse(
                    ScenarioError(
                        file: scenario, path: path, value: value,
                        expected: "a workload-only scenario for --process-count > 1"))
            }
            let opened = try await openStore(store, prepared: prepared, shards: shards)
            do {
                if processCount == 1 && !resume {
                    let existing = try await opened.service.allBookingsByID().count
                    if existing > 0 {
                        throw StoreFailure(
                            "the store already holds \(existing) bookings; use a fresh one (?schema=NAME, or a new journal directory)"
                        )
                    }
                }
                try await run(prepared, service: opened.service)
            } catch {
                await opened.close()
                if let failure = error as? StoreFailure { throw failure.exit() }
                throw error
            }
            await opened.close()
        }

        func run(_ prepared: PreparedScenario, service: (any BookingService)?) async throws {
            let page = HTMLOutput(html: html, history: history)
            let options = RunOptions(
                historyPath: page?.historyPath ?? history, progress: !quiet && isatty(STDERR_FILENO) != 0,
                reproduce: reproduce,
                process: .init(index: processIndex, count: processCount),
                // A run against a store may be killed: its history must show every call in flight,
                // on a clock later runs against the same store continue.
                flushHistoryEachOperation: service != nil, sharedClock: service != nil)
            let began = ContinuousClock.now
            var result: Report
            let threads = threadCount(prepared)
            do {
                if let threads, processCount > 1 || resume, let service {
                    let (ops, seconds) = try await Simulator.runThreadsShare(
                        prepared, service: service, threads: threads, options: options)
                    print(
                        "process \(processIndex)/\(processCount)\(resume ? " (resumed)" : ""): \(ops) operations in "
                            + String(format: "%.3f s", seconds) + ", history → \(history ?? "-")")
                    return
                } else if let threads {
                    let service = service ?? prepared.memoryStore(shards: shards)
                    result = try await Simulator.runThreads(
                        prepared, service: service, threads: threads, options: options)
                } else {
                    result = try Simulator.runDeterministic(prepared, options: options)
                }
            } catch {
                throw refuse(error)
            }
            let elapsed = ContinuousClock.now - began
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if let report { try writeAtomically(result.json(), to: report, as: .report) }
            try page?.write(result, threads: threads != nil)
            if quiet && result.passed {
                print("verdict: \(result.verdict.uppercased())")
            } else {
                print(result.summary)
                if threads == nil {
                    let ops = result.operations + result.steps
                    print(
                        String(
                            format: "  wall time %.3f s (%.0f operations/s including checks)", seconds,
                            seconds > 0 ? Double(ops) / seconds : 0))
                }
            }
            // After the summary, so a failing scenario shows its real failure first.
            if checkDeterminism {
                try checkTwice(prepared, first: result)
            }
            if !result.passed, let shrink, threads == nil {
                let smaller = Shrinker.shrink(prepared.scenario, file: scenario, failing: result) { candidate in
                    try? Simulator.runDeterministic(candidate, options: RunOptions())
                }
                try writeAtomically(DundeeImporter.encode(smaller), to: shrink, as: .scenario)
                print(
                    "  shrunk: \(smaller.workload?.operations ?? 0) operations, \(smaller.steps?.count ?? 0) steps → \(shrink)\n  reproduce: swift run -c release schedule-sim run \(shellQuote(shrink))"
                )
            }
            if result.exitCode != 0 { throw ExitCode(result.exitCode) }
        }

        func checkTwice(_ prepared: PreparedScenario, first: Report) throws {
            let check = try Simulator.checkDeterminism(
                prepared, first: first, options: RunOptions(reproduce: reproduce))
            print(
                check.same
                    ? "  determinism: two more runs gave byte-identical reports and histories (\(check.historyBytes) bytes of history)"
                    : "  determinism: FAILED — two runs of the same seed differ")
            if !check.same { throw ExitCode(1) }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate scenario files without running them (exit 65 on the first bad one).")

        @Argument(help: "Scenario files.")
        var scenarios: [String]

        func run() throws {
            for path in scenarios {
                let p = try load(path)
                print(
                    "\(path): ok — \(p.scenario.name): \(p.scenario.stations.count) stations, \(p.rules.catalog.socketCount) sockets, \(p.scenario.users.count) users, \(p.operations) operations, \(p.scenario.steps?.count ?? 0) steps"
                )
            }
        }
    }
}
