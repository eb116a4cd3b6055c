#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Metrics

/// What the store counts of its own work, with swift-metrics, beside what it logs at `warning`:
/// calls repeated (`slotscheduler_postgres_retries_total`, by operation), calls given up
/// (`slotscheduler_postgres_gave_up_total`, by operation and kind: `outcomeUnknown`,
/// `retriesExhausted`) and moves to another host (`slotscheduler_postgres_failovers_total`).
/// Calls by outcome, their latency and their spans are `SlotSchedulerObservability`'s, for every
/// store alike.
struct StoreCounters: Sendable {
    let factory: any MetricsFactory

    static let retries = "slotscheduler_postgres_retries_total"
    static let gaveUp = "slotscheduler_postgres_gave_up_total"
    static let failovers = "slotscheduler_postgres_failovers_total"

    func repeated(_ operation: String) {
        Counter(label: Self.retries, dimensions: [("operation", operation)], factory: factory).increment()
    }

    func gaveUp(_ operation: String, kind: PostgresStoreError.Kind) {
        Counter(label: Self.gaveUp, dimensions: [("operation", operation), ("kind", kind.rawValue)], factory: factory)
            .increment()
    }

    func movedHost() { Counter(label: Self.failovers, factory: factory).increment() }
}
#endif
