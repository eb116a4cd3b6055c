import Foundation
import SlotScheduler
import SlotSchedulerJournal
import SlotSimulation
import Testing

/// The in-memory scheduler and the journal store against the reference model: seeded sequences
/// of every lifecycle command and query (``StoreConformance``); the PostgreSQL store runs the
/// same sequences in `Tests/PostgresTests/ConformanceTests.swift`.
@Suite struct ConformanceTests {
    static let rules: Rules = {
        do {
            return try Rules(catalog: try Catalog(StoreConformance.stations), policy: StoreConformance.policy)
        } catch { fatalError("the conformance catalog and policy are valid: \(error)") }
    }()

    @Test(arguments: [1, 16] as [Int])
    func schedulerAgreesWithTheModel(shards: Int) async throws {
        var reasons: Set<String> = []
        for seed in 1...3 as ClosedRange<UInt64> {
            let result = try await StoreConformance.run(
                Scheduler(rules: Self.rules, shards: shards), seed: seed, steps: 400)
            #expect(result.disagreements.isEmpty, "seed \(seed): \(result.disagreements.prefix(3))")
            #expect(result.commandsNeverAccepted.isEmpty, "seed \(seed)")
            reasons.formUnion(result.reasons)
        }
        #expect(reasons.isSuperset(of: StoreConformance.reasonsOfSeeds1To3), "reached \(reasons.sorted())")
    }

    /// The journal store, catalog changes included, and the same store reopened from its files:
    /// what it replays is what it answered.
    @Test func journalStoreAgreesWithTheModel() async throws {
        var reasons: Set<String> = []
        for seed in 1...3 as ClosedRange<UInt64> {
            let dir = JournalFixture.temporaryDirectory("conformance-\(seed)")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let store = try JournalStore(directory: dir, rules: Self.rules, shards: 4)
            let result = try await StoreConformance.run(store, seed: seed, steps: 400, catalogChanges: true)
            #expect(result.reached["catalog accepted", default: 0] >= 2, "seed \(seed): \(result.reached)")
            #expect(result.reached["relocate accepted", default: 0] >= 3, "seed \(seed): \(result.reached)")
            #expect(result.disagreements.isEmpty, "seed \(seed): \(result.disagreements.prefix(3))")
            #expect(result.commandsNeverAccepted.isEmpty, "seed \(seed)")
            reasons.formUnion(result.reasons)
            let answered = try await store.allBookingsByID()
            await store.close()
            let reopened = try JournalStore(directory: dir, rules: Self.rules)
            #expect(try await reopened.allBookingsByID() == answered)
            await reopened.close()
        }
        #expect(reasons.isSuperset(of: StoreConformance.reasonsOfSeeds1To3), "reached \(reasons.sorted())")
        #expect(reasons.contains("timeZoneHasBookings"), "reached \(reasons.sorted())")
    }
}
