#if Observability  // built with `--traits Observability` only (Package.swift)
import Logging
import Metrics
import SlotScheduler
import Tracing

/// Logs, counts, times and traces one store call; what ``ObservedBookingService`` runs each call
/// through, so that every call of every store is observed in the same words.
///
/// - **Metrics** (swift-metrics, dimensions `store` and `operation`):
///   `slotscheduler_calls_total` with `outcome` and `reason` (``CallOutcome``), and the timer
///   `slotscheduler_call_duration_seconds`.
/// - **Traces** (swift-distributed-tracing): a span `slotscheduler.<operation>` around the call,
///   with the attributes `slotscheduler.store`, `slotscheduler.outcome`,
///   `slotscheduler.reason`, and `slotscheduler.booking` when a booking is named; a failed call
///   records its error and the span's status is an error. The call runs in the span's context,
///   so a store's own spans (a database client's) nest under it.
/// - **Logs** (swift-log): every call at `debug`, a failed one at `warning`, with the operation,
///   the outcome, the reason and the booking as metadata.
struct CallObserver: Sendable {
    let store: String
    let logger: Logger
    let factory: any MetricsFactory
    let tracer: any Tracer

    static let callsLabel = "slotscheduler_calls_total"
    static let durationLabel = "slotscheduler_call_duration_seconds"

    /// Runs `body` as `operation`; `describe` names the outcome of a value it returns (and the
    /// booking it is about, if any).
    func call<T: Sendable>(
        _ operation: StoreOperation, booking: BookingID? = nil, _ body: () async throws -> T,
        describe: (T) -> (CallOutcome, BookingID?) = { _ in (.accepted, nil) }
    ) async throws -> T {
        let span = tracer.startSpan(
            operation.spanName, context: ServiceContext.current ?? .topLevel, ofKind: .internal,
            at: DefaultTracerClock.now, function: #function, file: #fileID, line: #line)
        defer { span.end() }
        span.attributes["slotscheduler.store"] = store
        let start = ContinuousClock.now
        do {
            let value = try await ServiceContext.withValue(span.context) { try await body() }
            let (outcome, named) = describe(value)
            record(operation, outcome, booking: named ?? booking, since: start, span: span)
            return value
        } catch {
            let outcome = CallOutcome(error: error)
            if outcome.name == "failed" {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            record(operation, outcome, booking: booking, since: start, span: span, error: error)
            throw error
        }
    }

    private func record(
        _ operation: StoreOperation, _ outcome: CallOutcome, booking: BookingID?, since start: ContinuousClock.Instant,
        span: any Span, error: (any Error)? = nil
    ) {
        let elapsed = ContinuousClock.now - start
        let base = [("store", store), ("operation", operation.rawValue)]
        Counter(
            label: Self.callsLabel, dimensions: base + [("outcome", outcome.name), ("reason", outcome.reason)],
            factory: factory
        ).increment()
        Metrics.Timer(label: Self.durationLabel, dimensions: base, factory: factory)
            .recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        span.attributes["slotscheduler.outcome"] = outcome.name
        span.attributes["slotscheduler.reason"] = outcome.reason
        var metadata: Logger.Metadata = [
            "store": "\(store)", "operation": "\(operation.rawValue)", "outcome": "\(outcome.name)",
            "reason": "\(outcome.reason)",
        ]
        if let booking {
            span.attributes["slotscheduler.booking"] = "\(booking.rawValue)"
            metadata["booking"] = "\(booking.rawValue)"
        }
        if let error, outcome.name == "failed" {
            metadata["error"] = "\(error)"
            logger.warning("booking store call failed", metadata: metadata)
        } else {
            logger.debug("booking store call", metadata: metadata)
        }
    }
}
#endif
