#if Observability  // built with `--traits Observability` only (Package.swift)
import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import SlotScheduler
import SlotSchedulerJournal
import SlotSchedulerObservability
import Synchronization
import Testing

/// The journal store as a `Service`: it reports its work, closes on a graceful shutdown, and
/// ends the group when a sync fails instead of answering errors with the process up.
@Suite("Journal store service")
struct JournalStoreServiceTests {
    static let now = Instant(secondsSinceEpoch: 1_654_074_000)  // 2022-06-01 09:00 UTC

    static func request(user: UInt64) throws -> ReservationRequest {
        let slot = Slot(station: "IST-1", socket: "1", date: try LocalDate(parsing: "2022-06-02"), hour: 14)
        return ReservationRequest(slot: slot, user: UserID(user))
    }

    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("journal-service-\(UUID())").path
    }

    /// Polls (1 ms apart, at most 60,000 times) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) async {
        var polls = 0
        while !condition(), polls < 60_000 {
            polls += 1
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func reportsItsWorkAndClosesOnAGracefulShutdown() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try JournalStore(directory: directory, rules: try ObservedBookingServiceTests.rules())
        let logs = LogLines()
        let metrics = TestMetrics()
        let logger = Logger(label: "journal") { _ in LogLines.Handler(lines: logs) }
        let service = JournalStoreService(store, logger: logger, metricsFactory: metrics, interval: .milliseconds(5))
        let group = ServiceGroup(services: [service], logger: logger)
        let running = Task { try await group.run() }
        _ = try await store.reserve(try Self.request(user: 7), at: Self.now)
        let records = { metrics.counterTotal(label: "slotscheduler_journal_records_total") }
        let syncs = { metrics.counterTotal(label: "slotscheduler_journal_syncs_total") }
        // One report updates the counters one after another: wait for both, not for the first.
        await Self.waitUntil { records() >= 1 && syncs() >= 1 }
        #expect(records() == 1)
        #expect(syncs() >= 1)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(store.statistics.isClosed)
        await #expect(throws: JournalError.self) { try await store.reserve(try Self.request(user: 8), at: Self.now) }
        // The group logs through the same logger; the store's lines come in their order.
        let opened = logs.lines.firstIndex(of: "info journal store open")
        let closing = logs.lines.firstIndex(of: "info journal store closing")
        #expect(opened != nil && closing != nil && opened! < closing!, "logged: \(logs.lines)")
        let reopened = try JournalStore(directory: directory, rules: try ObservedBookingServiceTests.rules())
        #expect(try await reopened.allBookingsByID().map(\.user) == [7])
        await reopened.close()
    }

    @Test func aFailedSyncEndsTheGroup() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = FailingFiles(try PosixDirectory(path: directory))
        let store = try JournalStore(files: files, rules: try ObservedBookingServiceTests.rules())
        let logs = LogLines()
        let logger = Logger(label: "journal") { _ in LogLines.Handler(lines: logs) }
        let service = JournalStoreService(
            store, logger: logger, metricsFactory: TestMetrics(), interval: .milliseconds(5))
        let group = ServiceGroup(services: [service], logger: logger)
        let running = Task { try await group.run() }
        files.failSyncs.store(true, ordering: .relaxed)
        await #expect(throws: JournalError.self) { try await store.reserve(try Self.request(user: 7), at: Self.now) }
        await #expect(throws: JournalError.self) { try await running.value }
        #expect(store.statistics.failure != nil)
        #expect(logs.lines.contains("critical journal store failed; it takes no more commands"))
    }
}

/// A directory whose files' syncs fail (an I/O error, the disk staying on) once `failSyncs` is set.
final class FailingFiles: JournalFiles {
    let base: PosixDirectory
    let failSyncs = Atomic<Bool>(false)

    init(_ base: PosixDirectory) { self.base = base }

    var path: String { base.path }
    func lock() throws(JournalError) { try base.lock() }
    func unlock() { base.unlock() }
    func list() throws(JournalError) -> [String] { try base.list() }
    func read(_ name: String) throws(JournalError) -> [UInt8] { try base.read(name) }
    func create(_ name: String) throws(JournalError) -> any JournalFile { File(try base.create(name), owner: self) }
    func openForAppend(_ name: String, truncatingTo size: Int) throws(JournalError) -> any JournalFile {
        File(try base.openForAppend(name, truncatingTo: size), owner: self)
    }
    func rename(_ from: String, to: String) throws(JournalError) { try base.rename(from, to: to) }
    func remove(_ name: String) throws(JournalError) { try base.remove(name) }
    func syncDirectory() throws(JournalError) { try base.syncDirectory() }

    final class File: JournalFile {
        let base: any JournalFile
        let owner: FailingFiles

        init(_ base: any JournalFile, owner: FailingFiles) {
            self.base = base
            self.owner = owner
        }

        func write(_ bytes: [UInt8]) throws(JournalError) { try base.write(bytes) }
        func sync(metadata: Bool) throws(JournalError) {
            if owner.failSyncs.load(ordering: .relaxed) {
                throw JournalError(.io, file: owner.path, message: "fdatasync: input/output error (test)")
            }
            try base.sync(metadata: metadata)
        }
        func close() { base.close() }
        func syncHandle() throws(JournalError) -> any JournalFile { File(try base.syncHandle(), owner: owner) }
    }
}
#endif
