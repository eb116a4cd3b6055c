#if Observability  // built with `--traits Observability` only (Package.swift)
import Logging
import Metrics
import ServiceLifecycle
import SlotSchedulerJournal

/// A journal store run as a ServiceLifecycle `Service`: it says what recovery found, reports the
/// store's work as metrics, ends the service group when the store fails, and closes the store on
/// a graceful shutdown.
///
/// ```swift
/// let journal = try JournalStore(directory: "/var/lib/slots", rules: rules)
/// let group = ServiceGroup(
///     services: [JournalStoreService(journal, logger: logger), server], logger: logger)
/// try await group.run()
/// ```
///
/// - **Start**: logs at `info` what the store recovered (events, torn bytes cut, generation).
/// - **While running**, every `interval`: the counters `slotscheduler_journal_records_total`,
///   `slotscheduler_journal_syncs_total` (their ratio is the group commit's batch size) and
///   `slotscheduler_journal_checkpoints_total` (dimension `result`: `written`, `failed`).
/// - **A failed write or sync** leaves the store refusing every command until it is reopened:
///   the service logs it at `critical` and throws it, so the group shuts down and the process
///   can restart (recovery then keeps every acknowledged command). A store that keeps answering
///   errors with the process up is worse than a restart.
/// - **Graceful shutdown**: closes the store (what is buffered is written; see
///   `JournalStore.close()`), logged at `info`.
public struct JournalStoreService: Service {
    public let store: JournalStore
    let logger: Logger
    let factory: any MetricsFactory
    let interval: Duration

    /// Runs `store`; reports every `interval` to `metricsFactory` (by default the application's).
    public init(
        _ store: JournalStore, logger: Logger, metricsFactory: any MetricsFactory = MetricsSystem.factory,
        interval: Duration = .seconds(10)
    ) {
        self.store = store
        self.logger = logger
        self.factory = metricsFactory
        self.interval = interval
    }

    public func run() async throws {
        let opened = store.statistics
        // A tail cut at open is worth an operator's look: a crash, or damage at the journal's end.
        logger.log(
            level: opened.tornBytes > 0 ? .warning : .info,
            opened.tornBytes > 0 ? "journal store open; its torn tail was cut" : "journal store open",
            metadata: [
                "recovered events": "\(opened.recoveredEvents)", "torn bytes": "\(opened.tornBytes)",
                "generation": "\(opened.generation)",
            ])
        do {
            try await cancelWhenGracefulShutdown { try await watch() }
        } catch is CancellationError {
            // The graceful shutdown (or the group's cancellation) ended the watch.
        } catch {
            logger.critical("journal store failed; it takes no more commands", metadata: ["error": "\(error)"])
            await store.close()
            throw error
        }
        logger.info("journal store closing")
        await store.close()
    }

    /// Reports every `interval` until cancelled; throws the store's failure once it has one.
    private func watch() async throws {
        var reported = Reported()
        while true {
            let now = store.statistics
            reported.report(now, to: factory)
            if let failure = now.failure { throw failure }
            try await Task.sleep(for: interval)
        }
    }

    /// The totals reported so far: counters grow by what happened since.
    private struct Reported {
        var records = 0
        var syncs = 0
        var written = 0
        var failed = 0

        mutating func report(_ s: JournalStore.Statistics, to factory: any MetricsFactory) {
            Self.add(s.records, since: &records, label: "slotscheduler_journal_records_total", factory: factory)
            Self.add(s.syncs, since: &syncs, label: "slotscheduler_journal_syncs_total", factory: factory)
            let checkpoints = "slotscheduler_journal_checkpoints_total"
            Self.add(
                s.automaticCheckpoints, since: &written, label: checkpoints, dimensions: [("result", "written")],
                factory: factory)
            Self.add(
                s.failedCheckpoints, since: &failed, label: checkpoints, dimensions: [("result", "failed")],
                factory: factory)
        }

        static func add(
            _ total: Int, since last: inout Int, label: String, dimensions: [(String, String)] = [],
            factory: any MetricsFactory
        ) {
            let delta = total - last
            last = total
            guard delta > 0 else { return }
            Counter(label: label, dimensions: dimensions, factory: factory).increment(by: Int64(delta))
        }
    }
}
#endif
