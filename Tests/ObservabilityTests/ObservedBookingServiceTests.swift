#if Observability  // built with `--traits Observability` only (Package.swift)
import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
import SlotScheduler
import SlotSchedulerJournal
import SlotSchedulerObservability
import Synchronization
import Testing
import Tracing

/// Every call through ``ObservedBookingService`` is counted by outcome and reason, timed, traced
/// and logged, the same for the in-memory scheduler and the journal store; the answers are the
/// store's own.
@Suite("Observed stores")
struct ObservedBookingServiceTests {
    static let station = Station(
        id: "IST-1", name: "Kadıköy", city: "İstanbul", timeZone: "Europe/Istanbul",
        sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])

    static func rules() throws -> Rules {
        let policy = Policy(maxUpcomingBookings: 3, horizon: .lastDate(try LocalDate(parsing: "2022-12-31")))
        return try Rules(catalog: try Catalog([station]), policy: policy)
    }

    /// What one observed store recorded.
    struct Recording {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let logs = LogLines()

        func observe<Base: BookingService>(_ base: Base, as store: String) -> ObservedBookingService<Base> {
            var logger = Logger(label: "observed") { _ in LogLines.Handler(lines: logs) }
            logger.logLevel = .debug
            return ObservedBookingService(base, store: store, logger: logger, metricsFactory: metrics, tracer: tracer)
        }

        func calls(_ store: String, _ operation: String, _ outcome: String, _ reason: String = "none") -> Int64 {
            metrics.counterTotal(
                label: "slotscheduler_calls_total",
                dimensions: [("store", store), ("operation", operation), ("outcome", outcome), ("reason", reason)])
        }
    }

    /// Two bookings of one slot, a replay, a cancel by a stranger and by the owner, a query.
    static func play(_ store: some BookingService) async throws -> [String] {
        let now = Instant.utc(try LocalDate(parsing: "2022-06-01"), hour: 9)
        let slot = Slot(station: "IST-1", socket: "1", date: try LocalDate(parsing: "2022-06-02"), hour: 14)
        var answers: [String] = []
        let first = try await store.book(ReservationRequest(slot: slot, user: 7, requestID: "r-1"), at: now)
        answers.append("booked \(first.booking.id) replay \(first.isReplay)")
        let again = try await store.book(ReservationRequest(slot: slot, user: 7, requestID: "r-1"), at: now)
        answers.append("booked \(again.booking.id) replay \(again.isReplay)")
        do {
            _ = try await store.reserve(ReservationRequest(slot: slot, user: 8), at: now)
            answers.append("second booking accepted")
        } catch let refusal as Rejection {
            answers.append("refused \(refusal.reason)")
        }
        do {
            _ = try await store.cancel(first.booking.id, by: 8, at: now)
            answers.append("stranger cancelled")
        } catch let refusal as Rejection {
            answers.append("refused \(refusal.reason)")
        }
        let cancelled = try await store.cancel(first.booking.id, by: 7, at: now)
        answers.append("cancelled \(cancelled.id) \(cancelled.status)")
        answers.append("cancelled bookings \(try await store.bookings(of: 7, at: now).cancelled.count)")
        let read = try await store.booking(first.booking.id)
        answers.append("read \(read.map { "\($0.id) \($0.status)" } ?? "nothing")")
        answers.append("read a missing one: \(try await store.booking(BookingID(999_999)) == nil)")
        return answers
    }

    @Test func theSchedulerAnswersAsItselfAndEveryCallIsObserved() async throws {
        let scheduler = Scheduler(rules: try Self.rules())
        let plain = try await Self.play(Scheduler(rules: try Self.rules()))
        let recording = Recording()
        let observed = try await Self.play(recording.observe(scheduler, as: "memory"))
        #expect(observed == plain)
        try Self.expectObserved(recording, store: "memory")
    }

    @Test func theJournalStoreIsObservedInTheSameWords() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try JournalStore(directory: directory, rules: try Self.rules())
        let recording = Recording()
        _ = try await Self.play(recording.observe(journal, as: "journal"))
        await journal.close()
        try Self.expectObserved(recording, store: "journal")
    }

    /// A check-out that moves its station and a relocation reach the store through the wrapper
    /// (not the protocol's defaults over it), each one observed call.
    @Test func aMovingCheckOutAndARelocationAreObserved() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try JournalStore(directory: directory, rules: try Self.rules())
        let recording = Recording()
        let store = recording.observe(journal, as: "journal")
        let now = Instant.utc(try LocalDate(parsing: "2022-06-01"), hour: 9)
        let slot = Slot(station: "IST-1", socket: "1", date: try LocalDate(parsing: "2022-06-02"), hour: 14)
        let booking = try await journal.reserve(ReservationRequest(slot: slot, user: 7), at: now)
        _ = try await journal.checkIn(booking.id, by: 7, at: booking.start)
        let moda = Coordinate(latitude: 40.98, longitude: 29.02)
        let ended = try await store.checkOut(booking.id, by: 7, leftAt: moda, at: booking.start + .seconds(60))
        #expect(ended.status == .fulfilled)
        let fenerbahce = Coordinate(latitude: 40.97, longitude: 29.04)
        _ = try await store.relocate("IST-1", to: fenerbahce, at: booking.start + .seconds(120))
        #expect(journal.rules.catalog.station("IST-1")?.coordinate == fenerbahce)
        #expect(journal.rules.catalog.revision == 2)
        #expect(recording.calls("journal", "check_out", "accepted") == 1)
        #expect(recording.calls("journal", "relocate", "accepted") == 1)
        #expect(
            recording.tracer.finishedSpans.map(\.operationName) == [
                "slotscheduler.check_out", "slotscheduler.relocate",
            ])
        await journal.close()
    }

    /// A failed call (the store is closed) is counted as failed, its span records the error, and
    /// it is logged at warning.
    @Test func aFailedCallIsAnErrorInEveryOutput() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try JournalStore(directory: directory, rules: try Self.rules())
        await journal.close()
        let recording = Recording()
        let store = recording.observe(journal, as: "journal")
        let now = Instant.utc(try LocalDate(parsing: "2022-06-01"), hour: 9)
        let slot = Slot(station: "IST-1", socket: "1", date: try LocalDate(parsing: "2022-06-02"), hour: 14)
        await #expect(throws: JournalError.self) {
            try await store.reserve(ReservationRequest(slot: slot, user: 7), at: now)
        }
        #expect(recording.calls("journal", "reserve", "failed", "JournalError") == 1)
        let span = try #require(recording.tracer.finishedSpans.first)
        #expect(span.operationName == "slotscheduler.reserve")
        #expect(span.errors.count == 1)
        #expect(span.status?.code == .error)
        #expect(recording.logs.lines.contains { $0.hasPrefix("warning booking store call failed") })
    }

    static func expectObserved(_ r: Recording, store: String) throws {
        #expect(r.calls(store, "reserve", "accepted") == 1)
        #expect(r.calls(store, "reserve", "replayed") == 1)
        #expect(r.calls(store, "reserve", "refused", "slotTaken") == 1)
        #expect(
            r.calls(store, "cancel", "refused", "notOwner") + r.calls(store, "cancel", "refused", "unknownBooking") == 1
        )
        #expect(r.calls(store, "cancel", "accepted") == 1)
        #expect(r.calls(store, "bookings", "accepted") == 1)
        #expect(r.calls(store, "booking", "accepted") == 2)
        let timer = try r.metrics.expectTimer(
            "slotscheduler_call_duration_seconds", [("store", store), ("operation", "reserve")])
        #expect(timer.values.count == 3)
        let spans = r.tracer.finishedSpans
        #expect(
            spans.map(\.operationName) == [
                "slotscheduler.reserve", "slotscheduler.reserve", "slotscheduler.reserve", "slotscheduler.cancel",
                "slotscheduler.cancel", "slotscheduler.bookings", "slotscheduler.booking", "slotscheduler.booking",
            ])
        #expect(spans.allSatisfy { $0.attributes["slotscheduler.store"]?.toSpanAttribute() == .string(store) })
        #expect(spans[2].attributes["slotscheduler.reason"]?.toSpanAttribute() == .string("slotTaken"))
        #expect(spans.allSatisfy { $0.errors.isEmpty }, "a refusal is an answer, not an error")
        #expect(r.logs.lines.count == 8)
        #expect(r.logs.lines.allSatisfy { $0.hasPrefix("debug booking store call") })
    }
}

/// Log lines, as `level message`, from a handler that keeps them.
final class LogLines: Sendable {
    private let stored = Mutex<[String]>([])
    var lines: [String] { stored.withLock { $0 } }

    struct Handler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.stored.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
#endif
