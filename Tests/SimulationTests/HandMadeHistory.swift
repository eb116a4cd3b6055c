import SlotScheduler

@testable import SlotSimulation

/// A threads-mode history written by hand, with the store's final bookings, checked as a run's
/// would be: one station with two CCS sockets ("1" at 50 kW, "2" at 150 kW) and a Type 2 one
/// ("3"), open all day, bookings on 2018-06-07; times in nanoseconds as given.
struct HandMadeHistory {
    let p: PreparedScenario
    var ops: [TimedOperation] = []
    var final: [Booking] = []

    init() throws {
        var s = Fixtures.small(operations: 10)
        s.stations[0].sockets = [
            Socket(id: "1", connector: .ccs, powerKW: 50), Socket(id: "2", connector: .ccs, powerKW: 150),
            Socket(id: "3", connector: .type2, powerKW: 22),
        ]
        p = try Fixtures.prepared(s)
    }

    /// The `now` of every operation unless told otherwise: the workload's start.
    var now: Int64 { p.workloadStart }

    func slot(_ socket: String, _ hour: Int) -> Slot {
        Slot(station: "s1", socket: SocketID(socket), date: Fixtures.date("2018-06-07"), hour: hour)
    }

    func cell(_ socket: String, _ hour: Int) -> Int32 { p.cell(of: slot(socket, hour)) ?? -1 }

    func user(_ k: UInt64) -> UInt64 { p.firstUser + k }

    /// Appends an operation (keep them in invoke order, as a history is).
    mutating func add(
        _ kind: TimedOperation.Kind, user k: UInt64, _ socket: String = "1", hour: Int = 10, booking: UInt64 = 0,
        result: TimedOperation.Outcome = .accepted, _ invoke: Int64, _ complete: Int64, now: Int64? = nil,
        minimumPowerKW: Double = 0
    ) {
        var op = TimedOperation(
            process: Int32(ops.count % 4), kind: kind, user: user(k), cell: cell(socket, hour), booking: booking,
            result: result, now: now ?? self.now, invoke: invoke, complete: complete)
        if kind == .anySocket {
            op.requestedCell = op.cell
            op.minimumPowerKW = minimumPowerKW
        }
        ops.append(op)
    }

    /// Adds a booking to the store's final state.
    mutating func stored(
        _ id: UInt64, user k: UInt64, _ socket: String = "1", hour: Int = 10, _ status: Booking.Status = .active
    ) {
        final.append(
            Booking(
                id: BookingID(id), slot: slot(socket, hour), user: UserID(user(k)),
                start: Instant(secondsSinceEpoch: p.starts[Int(cell(socket, hour))]),
                createdAt: Instant(secondsSinceEpoch: now), status: status))
    }

    /// The report of the history against the final state, with its verdict.
    func report() -> Report {
        var history = CompactHistory(firstUser: p.firstUser)
        for op in ops { history.append(op) }
        var analysis = ThreadsAnalysis(
            p: p, history: history, finalBookings: BookingsByID(final, p), options: RunOptions())
        analysis.run(budget: 100_000)
        var report = analysis.report(threads: 4, elapsed: 0, operations: ops.count)
        report.finish(expectations: nil)
        return report
    }

    func violations(_ id: String, in report: Report) -> Int {
        report.invariants.first { $0.id == id }?.violations ?? -1
    }
}
