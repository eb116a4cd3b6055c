import Foundation
import Logging
import ServiceLifecycle
import SlotScheduler
import SlotSchedulerJournal
import SlotSchedulerObservability
import SlotSchedulerPostgres
import SlotSimulation

/// Where bookings live (`--store`): one of the library's stores, observed
/// (`ObservedBookingService`: a counter and a timer per call, a span, logs through the service's
/// logger), with what runs beside the HTTP server and how to tell whether it takes writes.
struct ServiceStore: Sendable {
    /// The store the routes call.
    let service: any BookingService
    /// Where ``IdempotencyMiddleware`` keeps the first answer to each key: in this process for
    /// memory and a journal (one instance), in the database for PostgreSQL (every instance).
    let answers: any AnswerKeeper
    /// Why the store cannot take writes now, or `nil` when it can (`GET /health/ready`).
    let notReadyBecause: @Sendable () async -> String?
    /// What runs in the service group beside the server and stops after it: the journal's
    /// watch (which closes it), the PostgreSQL store (which lets its calls finish, then closes
    /// its pool) and the kept answers' pool.
    let services: [any Service]

    /// A `--store` value.
    enum Kind: Equatable {
        /// In memory: fast, and empty again after a restart.
        case memory
        /// `journal:DIR`: durable in one directory, one process at a time.
        case journal(String)
        /// `postgres://…`: durable in PostgreSQL, any number of instances on one database.
        case postgres(String)

        /// Reads `option`: `memory`, `journal:DIR` or a `postgres://` (or `postgresql://`) URL.
        init(_ option: String) throws(StoreOptionError) {
            if option == "memory" {
                self = .memory
            } else if option.hasPrefix("journal:"), option.count > "journal:".count {
                self = .journal(String(option.dropFirst("journal:".count)))
            } else if option.hasPrefix("postgres://") || option.hasPrefix("postgresql://") {
                self = .postgres(option)
            } else {
                throw StoreOptionError(option)
            }
        }

        /// The `store` dimension of the metrics.
        var name: String {
            switch self {
            case .memory: "memory"
            case .journal: "journal"
            case .postgres: "postgres"
            }
        }
    }

    /// Opens the store `kind` names for the scenario's stations and policy. Its overrides are
    /// applied to memory, to a new journal directory, and to PostgreSQL on every start (an
    /// availability change applied again changes nothing, so several instances may all apply it).
    static func open(_ kind: Kind, prepared: PreparedScenario, file: String, logger: Logger) async throws
        -> ServiceStore
    {
        let overrides = prepared.scenario.overrides ?? []
        let now = Instant(Date())
        func apply(to store: some BookingService) async throws {
            for (index, change) in overrides.enumerated() {
                do { _ = try await store.changeAvailability(change, onBookings: .displace, at: now) } catch {
                    throw StoreOpenError("\(file): overrides[\(index)]: \(error)")
                }
            }
        }
        switch kind {
        case .memory:
            // The in-memory store keeps no journal of its own: nothing would read it.
            let scheduler = Scheduler(rules: prepared.rules, journaling: false)
            try await apply(to: scheduler)
            return ServiceStore(
                service: ObservedBookingService(scheduler, store: kind.name, logger: logger), answers: KeptAnswers(),
                notReadyBecause: { nil }, services: [])
        case .journal(let directory):
            let isNew = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty ?? true
            let store: JournalStore
            do { store = try JournalStore(directory: directory, rules: prepared.rules) } catch {
                throw StoreOpenError("--store journal:\(directory): \(error)")
            }
            if isNew { try await apply(to: store) }
            return ServiceStore(
                service: ObservedBookingService(store, store: kind.name, logger: logger), answers: KeptAnswers(),
                notReadyBecause: { Self.notReady(store.statistics) },
                services: [JournalStoreService(store, logger: logger)])
        case .postgres(let url):
            let store: PostgresBookingService
            let answers: SharedAnswers
            do {
                let configuration = try PostgresConfiguration(url: url)
                store = try await PostgresBookingService(
                    configuration: configuration, stations: prepared.rules.catalog.stations,
                    policy: prepared.rules.policy, logger: logger)
                do { answers = try await SharedAnswers.open(configuration, logger: logger) } catch {
                    await store.shutdown()
                    throw error
                }
            } catch {
                throw StoreOpenError("--store \(PostgresConfiguration.redacted(url)): \(error)")
            }
            try await apply(to: store)
            // The group stops them in reverse: the kept answers' pool, then the store.
            return ServiceStore(
                service: ObservedBookingService(store, store: kind.name, logger: logger), answers: answers,
                notReadyBecause: { await Self.notReady(store) }, services: [store, answers])
        }
    }

    /// After a failed write or sync the journal refuses every command until it is reopened: the
    /// instance should leave the load balancer and be restarted (recovery keeps what it answered).
    static func notReady(_ statistics: JournalStore.Statistics) -> String? {
        if let failure = statistics.failure { return "the journal failed: \(failure)" }
        return statistics.isClosed ? "the journal is closed" : nil
    }

    /// A PostgreSQL store is ready while a read through its pool of the writable host answers.
    static func notReady(_ store: PostgresBookingService) async -> String? {
        do {
            _ = try await store.booking(BookingID(0))
            return nil
        } catch {
            return "PostgreSQL does not answer: \(error)"
        }
    }
}

/// A `--store` value the service cannot read.
struct StoreOptionError: Error, CustomStringConvertible {
    var option: String

    init(_ option: String) { self.option = option }

    var description: String {
        "--store \(option): expected memory, journal:DIRECTORY or a postgres:// URL"
    }
}

/// A store that could not be opened, and why.
struct StoreOpenError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
