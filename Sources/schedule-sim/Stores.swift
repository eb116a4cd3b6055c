import ArgumentParser
import Foundation
import SlotScheduler
import SlotSchedulerJournal
import SlotSimulation

/// Where `--store` keeps bookings, other than `memory`: a PostgreSQL database (a URL, or `env`
/// for SLOTSCHEDULER_DATABASE_URL; see DatabaseStore.swift) or a journal directory
/// (`journal:DIR`, one process at a time).
enum StoreChoice {
    case database
    case journal(directory: String)

    init(_ store: String) throws(ValidationError) {
        if store.hasPrefix("journal:") {
            let directory = String(store.dropFirst("journal:".count))
            if directory.isEmpty { throw ValidationError("--store journal:DIR needs a directory") }
            self = .journal(directory: directory)
        } else {
            _ = try storeConfiguration(store)
            self = .database
        }
    }

    var isJournal: Bool {
        if case .journal = self { return true }
        return false
    }
}

/// An open store, and how to close it.
struct OpenStore {
    let service: any BookingService
    let close: @Sendable () async -> Void
}

/// Opens `--store` with the scenario's stations and policy (exit 69 if it cannot).
func openStore(_ store: String, prepared: PreparedScenario, shards: Int = 16) async throws -> OpenStore {
    try await openStore(store, rules: prepared.rules, shards: shards)
}

/// Opens `--store` with `rules`' stations and policy (exit 69 if it cannot).
func openStore(_ store: String, rules: Rules, shards: Int = 16) async throws -> OpenStore {
    switch try StoreChoice(store) {
    case .database:
        let service = try await connect(store, rules: rules)
        return OpenStore(service: service, close: { await service.shutdown() })
    case .journal(let directory):
        do {
            let journal = try JournalStore(directory: directory, rules: rules, shards: shards)
            let torn = journal.statistics.tornBytes
            if torn > 0 {
                // Recovery cut what a crash left after the last whole record: say so.
                FileHandle.standardError.write(
                    Data(
                        "note: \(directory): the journal's torn tail was cut at open (\(torn) bytes after its last whole record, preallocated zeros included; none was acknowledged)\n"
                            .utf8))
            }
            return OpenStore(service: journal, close: { await journal.close() })
        } catch {
            throw StoreFailure("cannot open the store: \(error)").exit()
        }
    }
}
