import ArgumentParser
import Foundation

#if Postgres
import SlotSchedulerPostgres
#endif

extension ScheduleSim {
    /// `schedule-sim db status|migrate|grant`: the PostgreSQL schema's deploy steps, run as the
    /// owner role before the service's instances start with `schemaChanges = .never`.
    struct Database: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "db",
            abstract: "The PostgreSQL store's schema as a deploy step: status, migrate, grant.",
            discussion: """
                Run as the role that owns the schema. `migrate` applies the pending migrations (the \
                store's start does the same unless schemaChanges = .never) and grants every recorded \
                runtime role again; `grant` lets a role run the store and records it; `status` lists the \
                migrations applied and pending. Exit codes: 0 done (for status: nothing pending), 1 \
                migrations pending, 64 usage error, 69 the database cannot be reached or refused the step.

                Examples:
                  schedule-sim db status --store postgres://owner@db/bookings?schema=app
                  schedule-sim db migrate --store env
                  schedule-sim db grant --store env --role booking_service
                """,
            subcommands: [Status.self, Migrate.self, Grant.self])

        struct Target: ParsableArguments {
            @Option(help: "The store: a postgres:// URL or `env` (SLOTSCHEDULER_DATABASE_URL).")
            var store: String
        }

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List the migrations applied (with when) and pending; exit 1 if any is pending.")
            @OptionGroup var target: Target
            func run() async throws { try await deployStep(.status, store: target.store) }
        }

        struct Migrate: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Apply the pending migrations and grant the recorded runtime roles again.")
            @OptionGroup var target: Target
            func run() async throws { try await deployStep(.migrate, store: target.store) }
        }

        struct Grant: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Let a role run the store (no schema changes) and record it for later migrations.")
            @OptionGroup var target: Target
            @Option(help: "The role the service's instances connect as ([a-z_][a-z0-9_]*).")
            var role: String

            func validate() throws {
                guard role.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                    throw ValidationError("--role \(role): a role name is [a-z_][a-z0-9_]{0,62}")
                }
            }
            func run() async throws { try await deployStep(.grant(role), store: target.store) }
        }
    }
}

/// One of `schedule-sim db`'s steps.
enum DeployStep {
    case status, migrate
    case grant(String)
}

#if Postgres
/// Runs a deploy step and prints what it did. A usage error stays one (64); anything the
/// database says is exit 69; pending migrations after `status` are exit 1.
func deployStep(_ step: DeployStep, store: String) async throws {
    let configuration = try storeConfiguration(store)
    var pending = false
    do {
        switch step {
        case .status:
            let list = try await SchemaSteps.status(configuration)
            for m in list {
                let state = m.appliedAt.map { "applied \($0)" } ?? "pending"
                print("v\(m.version)\t\(state)\t\(m.name)\(m.isKnown ? "" : " (not known to this version)")")
            }
            let names = list.filter { $0.appliedAt == nil }.map { "v\($0.version)" }
            pending = !names.isEmpty
            print(pending ? "pending: \(names.joined(separator: ", "))" : "up to date")
        case .migrate:
            let applied = try await SchemaSteps.migrate(configuration)
            print(
                applied.isEmpty
                    ? "nothing to apply: up to date" : "applied \(applied.map { "v\($0)" }.joined(separator: ", "))")
        case .grant(let role):
            try await SchemaSteps.grantRuntimeAccess(configuration, to: role)
            print("granted runtime access to \(role)")
        }
    } catch {
        throw StoreFailure("db: \(error)").exit()
    }
    if pending { throw ExitCode(1) }
}
#else
func deployStep(_ step: DeployStep, store: String) async throws {
    try storeConfiguration(store)
}
#endif
