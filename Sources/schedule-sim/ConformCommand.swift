import ArgumentParser
import Foundation
import SlotScheduler
import SlotSimulation

extension ScheduleSim {
    /// `schedule-sim conform`: a store held to the reference model, call by call
    /// (``StoreConformance``), as the test suites hold the three stores.
    struct Conform: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hold a store to the reference model, call by call: every lifecycle command and query.",
            discussion: """
                Sends one seeded sequence of every command (reserve, any socket, hold, confirm, release, \
                reschedule, cancel, check-in, availability changes) and query (a user's lists and pages, \
                one booking, day views, live holds, reminders due, every booking) to the store and to the \
                reference model, on a catalog and policy of its own, and prints every answer that differs. \
                Use an empty journal directory or a fresh PostgreSQL schema. Exit codes: 0 the store agreed, \
                1 it did not, 64 usage error, 69 the store cannot be opened or reached.

                Examples:
                  schedule-sim conform
                  schedule-sim conform --store journal:/tmp/conform --seed 7 --steps 2000
                  schedule-sim conform --store 'postgres://app@127.0.0.1/bookings?schema=conform'
                """)

        @Option(help: "The store: memory (the default), journal:DIR, a postgres:// URL or env.")
        var store = "memory"

        @Option(parsing: .unconditional, help: "The sequence's seed.", transform: parseSeed)
        var seed: UInt64 = 1

        @Option(help: "Commands in the sequence (1...100000), each followed by a query.")
        var steps = 400

        func validate() throws {
            guard (1...100_000).contains(steps) else {
                throw ValidationError("--steps must be 1...100000; found \(steps)")
            }
            if store != "memory" { _ = try StoreChoice(store) }
        }

        func run() async throws {
            let rules: Rules
            do {
                rules = try Rules(catalog: try Catalog(StoreConformance.stations), policy: StoreConformance.policy)
            } catch {
                throw StoreFailure("the conformance catalog: \(error)").exit()
            }
            let opened =
                store == "memory"
                ? OpenStore(service: Scheduler(rules: rules), close: {})
                : try await openStore(store, rules: rules)
            let result: StoreConformance.Result
            do {
                result = try await StoreConformance.run(
                    opened.service, seed: seed, steps: steps, catalogChanges: !(opened.service is Scheduler))
            } catch {
                await opened.close()
                throw StoreFailure("the store failed: \(error)").exit()
            }
            await opened.close()
            let refusals = result.reached.filter { $0.key.contains(" refused ") }.values.reduce(0, +)
            let accepted = result.reached.filter { $0.key.hasSuffix(" accepted") }.values.reduce(0, +)
            // A database URL may carry a password: named, not printed.
            let name = store == "memory" || store.hasPrefix("journal:") ? store : "PostgreSQL"
            print(
                "conform \(name), seed \(seed), \(steps) steps: \(accepted) accepted, \(refusals) refused "
                    + "for \(result.reasons.count) reasons")
            if !result.commandsNeverAccepted.isEmpty {
                print("never accepted: \(result.commandsNeverAccepted.joined(separator: ", "))")
            }
            for disagreement in result.disagreements.prefix(20) { print("  \(disagreement)") }
            if result.disagreements.isEmpty {
                print("verdict: PASS (every answer as the model's)")
            } else {
                print("verdict: FAIL (\(result.disagreements.count) answers differ from the model's)")
                throw ExitCode(1)
            }
        }
    }
}
