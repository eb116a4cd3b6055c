#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import SlotSchedulerPostgres
import SlotSimulation
import Testing

/// The PostgreSQL store against the reference model: the same seeded sequences of every
/// lifecycle command and query as the in-memory and journal stores
/// (`Tests/JournalTests/ConformanceTests.swift`, ``StoreConformance``).
@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct ConformanceTests {
    @Test func postgresAgreesWithTheModel() async throws {
        var reasons: Set<String> = []
        for seed in 1...3 as ClosedRange<UInt64> {
            let store = try await TestDatabase.store(
                schema: TestDatabase.freshSchema("conform"), stations: StoreConformance.stations,
                policy: StoreConformance.policy)
            let result = try await StoreConformance.run(store, seed: seed, steps: 400, catalogChanges: true)
            #expect(result.reached["catalog accepted", default: 0] >= 2, "seed \(seed): \(result.reached)")
            #expect(result.reached["relocate accepted", default: 0] >= 3, "seed \(seed): \(result.reached)")
            #expect(result.disagreements.isEmpty, "seed \(seed): \(result.disagreements.prefix(3))")
            #expect(result.commandsNeverAccepted.isEmpty, "seed \(seed)")
            reasons.formUnion(result.reasons)
            await store.shutdown()
        }
        #expect(reasons.isSuperset(of: StoreConformance.reasonsOfSeeds1To3), "reached \(reasons.sorted())")
        #expect(reasons.contains("timeZoneHasBookings"), "reached \(reasons.sorted())")
    }
}
#endif
