#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import SlotSchedulerPostgres
import Testing

/// What one client (one backend instance) saw: the bookings confirmed to it, the ones it
/// cancelled, and how many calls failed with a store error (not a refusal).
struct ClientHistory: Sendable {
    var confirmed: [Booking] = []
    var cancelled: Set<BookingID> = []
    /// Cancels whose reply was lost (a store error, never a refusal): they may or may not have happened.
    var uncertainCancels: Set<BookingID> = []
    var refusals = 0
    var storeErrors: [String] = []
}

/// Several instances, each with its own connection pool, run a seeded workload of reservations
/// (all with request ids, so a lost reply can be repeated safely) and cancellations.
func runInstances(
    schema: String, instances: Int, callsPerInstance: Int, at now: Instant
) async throws -> [ClientHistory] {
    try await runInstances(
        stores: try await TestDatabase.openInstances(instances, schema: schema), callsPerInstance: callsPerInstance,
        at: now)
}

/// Runs the workload on stores already open, and shuts them down.
func runInstances(
    stores: [PostgresBookingService], callsPerInstance: Int, at now: Instant
) async throws -> [ClientHistory] {
    let instances = stores.count
    let histories = try await withThrowingTaskGroup(of: (Int, ClientHistory).self) { group in
        for (index, store) in stores.enumerated() {
            group.addTask {
                var random = Seeded(state: UInt64(index) &* 7919 &+ 1)
                var history = ClientHistory()
                for call in 0..<callsPerInstance {
                    let socket: SocketID = ["A", "B"].randomElement(using: &random) ?? "A"
                    let day = Fixture.day.adding(days: Int.random(in: 0..<3, using: &random))
                    let user = UserID(UInt64.random(in: 1...12, using: &random))
                    var cancelling: BookingID?
                    do {
                        if call % 5 == 4,
                            let mine = history.confirmed.last(where: {
                                !history.cancelled.contains($0.id) && !history.uncertainCancels.contains($0.id)
                            })
                        {
                            cancelling = mine.id
                            _ = try await store.cancel(mine.id, by: mine.user, at: now)
                            history.cancelled.insert(mine.id)
                        } else {
                            let request = ReservationRequest(
                                slot: Slot(
                                    station: "south", socket: socket, date: day,
                                    hour: Int.random(in: 0..<24, using: &random)),
                                user: user, requestID: RequestID("i\(index)-\(call)"))
                            history.confirmed.append(try await store.reserve(request, at: now))
                        }
                    } catch is Rejection {
                        history.refusals += 1
                    } catch {
                        history.storeErrors.append(String(describing: error))
                        if let cancelling { history.uncertainCancels.insert(cancelling) }
                    }
                }
                return (index, history)
            }
        }
        var result = [ClientHistory](repeating: ClientHistory(), count: instances)
        for try await (index, history) in group { result[index] = history }
        return result
    }
    for store in stores { await store.shutdown() }
    return histories
}

/// The checker across instances: reads the database's final state and every instance's history.
/// I1 no slot held twice; I2 nobody over their limit; every booking confirmed to a client (and
/// not cancelled by it) is still active; no active booking that no client was told about, other
/// than those whose reply was lost.
func checkAcrossInstances(_ histories: [ClientHistory], schema: String, at now: Instant) async throws -> [String] {
    let store = try await TestDatabase.store(schema: schema)
    let all = try await store.allBookingsByID()
    let rules = store.rules
    await store.shutdown()
    var problems = invariantViolations(all, rules: rules, at: now)
    let byID = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var told = Set<BookingID>()
    for (index, history) in histories.enumerated() {
        for booking in history.confirmed {
            told.insert(booking.id)
            guard let stored = byID[booking.id] else {
                problems.append("instance \(index): confirmed booking \(booking.id) is missing")
                continue
            }
            if stored.slot != booking.slot || stored.user != booking.user {
                problems.append("instance \(index): booking \(booking.id) changed: \(stored) vs \(booking)")
            }
            let expected: Booking.Status = history.cancelled.contains(booking.id) ? .cancelled : .active
            let uncertain = history.uncertainCancels.contains(booking.id) && stored.status == .cancelled
            if stored.status != expected && !uncertain {
                problems.append("instance \(index): booking \(booking.id) is \(stored.status), expected \(expected)")
            }
        }
    }
    let lostReplies = histories.reduce(0) { $0 + $1.storeErrors.count }
    let unknown = all.filter { !told.contains($0.id) }
    if unknown.count > lostReplies {
        problems.append("\(unknown.count) bookings no client was told about, only \(lostReplies) lost replies")
    }
    return problems
}

@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct MultiInstanceTests {
    /// Four instances (four pools, as four backend processes would have) book concurrently.
    @Test func instancesShareOneLedger() async throws {
        let schema = TestDatabase.freshSchema("multi")
        let histories = try await runInstances(schema: schema, instances: 4, callsPerInstance: 150, at: Fixture.now)
        let problems = try await checkAcrossInstances(histories, schema: schema, at: Fixture.now)
        #expect(problems.isEmpty, "\(problems)")
        #expect(histories.allSatisfy { $0.storeErrors.isEmpty }, "\(histories.map(\.storeErrors))")
        #expect(histories.reduce(0) { $0 + $1.confirmed.count } > 50)
    }
}

/// The fault test, alone on the database: it kills every connection to it and restarts the server.
@Suite(.exclusiveDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct FaultTests {
    /// Kills every connection several times and, when the script provides
    /// `SLOTSCHEDULER_PG_RESTART_CMD`, crash-restarts the server during the run. Afterwards every
    /// booking a client saw confirmed is still there and nothing is double-booked.
    ///
    /// Every store call has a per-attempt deadline (`PostgresConfiguration.attemptTimeout`), so a
    /// call on a connection the server ended cannot hang the run (see docs/POSTGRES.md, "Faults");
    /// the time limit is the last guard.
    @Test(.databaseTestLimit)
    func survivesKilledConnectionsAndRestarts() async throws {
        let schema = TestDatabase.freshSchema("fault")
        guard let url = TestDatabase.url else { return }
        // Migrated and connected before the first kill: the faults are for the workload, and a
        // failed setup must not leave them running once the gate lets other suites in.
        let stores = try await TestDatabase.openInstances(4, schema: schema)
        let faults = Task.detached { () -> [String] in
            var log: [String] = []
            for round in 0..<6 {
                try? await Task.sleep(for: .milliseconds(400))
                let kill =
                    "timeout 30 psql -X -q -d '\(url)' -c \"SELECT count(pg_terminate_backend(pid)) "
                    + "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()\" "
                    + ">/dev/null 2>&1"
                log.append("kill \(round): \((try? await TestDatabase.shell(kill)) ?? -1)")
                if round == 3, let restart = TestDatabase.restartCommand {
                    log.append("restart: \((try? await TestDatabase.shell("timeout 90 " + restart)) ?? -1)")
                }
            }
            return log
        }
        let histories: [ClientHistory]
        do {
            histories = try await runInstances(stores: stores, callsPerInstance: 200, at: Fixture.now)
        } catch {
            _ = await faults.value  // the gate is released only once the faults have ended
            throw error
        }
        let log = await faults.value
        let problems = try await checkAcrossInstances(histories, schema: schema, at: Fixture.now)
        #expect(problems.isEmpty, "\(problems)")
        let errors = histories.flatMap(\.storeErrors)
        print(
            "fault test: \(log), confirmed \(histories.reduce(0) { $0 + $1.confirmed.count }), "
                + "store errors \(errors.count)\(errors.first.map { ", first: \($0)" } ?? "")")
        #expect(histories.reduce(0) { $0 + $1.confirmed.count } > 50)
        if TestDatabase.restartCommand != nil { #expect(log.contains { $0.hasPrefix("restart: 0") }, "\(log)") }
    }
}
#endif
