import Foundation
import SlotScheduler
import Synchronization
import Testing

@testable import SlotSimulation

/// The store's side of a lost reply: every `every`-th call is applied, but the caller gets an
/// error that is not a refusal (as when the server crashes after committing, before answering).
struct LostReplyService: ForwardingService {
    struct LostReply: Error {}
    let inner: Scheduler
    let every: Int
    let calls = Counter()

    func lose() -> Bool { calls.value.add(1, ordering: .relaxed).newValue % every == 0 }

    func reserve(_ request: ReservationRequest, at now: Instant) async throws -> Booking {
        let booking = try inner.reserve(request, at: now)
        if lose() { throw LostReply() }
        return booking
    }
    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        let booking = try inner.cancel(id, by: user, at: now)
        if lose() { throw LostReply() }
        return booking
    }
}

/// A deliberately broken store: acknowledges every reservation, then loses every fifth one
/// (what an acknowledgement before the commit looks like after a crash).
struct CommitLosingService: ForwardingService {
    let inner: Scheduler
    func allBookingsByID() async throws -> [Booking] {
        inner.allBookings.enumerated().filter { $0.offset % 5 != 4 }.map(\.element)
    }
}

/// A deliberately broken store: its final state holds a booking no client attempted.
struct InventingService: ForwardingService {
    let inner: Scheduler
    func allBookingsByID() async throws -> [Booking] {
        var all = inner.allBookings
        guard let first = all.first else { return all }
        var invented = first
        invented.id = BookingID(1 << 60)
        invented.user = UserID(1 << 40)
        all.append(invented)
        return all
    }
}

@Suite struct IndeterminateTests {
    /// Lost replies are indeterminate: the check accepts either outcome, resolves each against the
    /// final state, and says how many happened.
    @Test func lostRepliesAreResolvedNotReported() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 2_000))
        let service = LostReplyService(inner: Scheduler(rules: p.rules), every: 7)
        let report = try await Simulator.runThreads(p, service: service, threads: 2)
        #expect(report.verdict == "pass", "\(report.summary)")
        let resolved = try #require(report.indeterminate)
        // Every lost reply was applied by the store, so each resolves as happened.
        #expect(resolved.reservationsThatHappened > 0 && resolved.reservationsThatDidNot == 0, "\(resolved)")
        #expect(resolved.cancelsThatHappened > 0 && resolved.cancelsThatDidNot == 0, "\(resolved)")
        #expect(report.summary.contains("indeterminate"))
    }

    @Test func lostAcknowledgedBookingsAreCaught() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 2_000))
        let report = try await Simulator.runThreads(
            p, service: CommitLosingService(inner: Scheduler(rules: p.rules)), threads: 2)
        #expect(report.invariants.first { $0.id == "I5" }?.status == "fail")
        #expect(report.failures.contains { $0.message.contains("was acknowledged, but the store does not hold it") })
    }

    @Test func inventedBookingsAreCaught() async throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 2_000))
        let report = try await Simulator.runThreads(
            p, service: InventingService(inner: Scheduler(rules: p.rules)), threads: 2)
        #expect(report.invariants.first { $0.id == "I5" }?.status == "fail")
        #expect(report.failures.contains { $0.message.contains("which no reservation made") })
    }

    /// A killed process's history ends mid-line, with operations invoked and never returned: they
    /// are read as indeterminate, not refused as a broken file.
    @Test func historyCutByAKillIsReadable() throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 10))
        let path = Fixtures.temporaryPath("killed.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lines = [
            #"{"process":0,"type":"invoke","time":10,"index":0,"op":"reserve","user":1,"now":0,"cell":0}"#,
            #"{"process":0,"type":"ok","time":20,"index":0,"op":"reserve","user":1,"now":0,"cell":0,"booking":5}"#,
            #"{"process":0,"type":"invoke","time":30,"index":1,"op":"reserve","user":2,"now":0,"cell":1}"#,
            #"{"process":0,"type":"ok","time":40,"ind"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let ops = try Simulator.readTimedHistory(path: path, p)
        #expect(ops.map(\.outcome) == [-1, -2])
        #expect(ops.last?.complete == 40 || ops.last?.complete == 30)
    }
}
