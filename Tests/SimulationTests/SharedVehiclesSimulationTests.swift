import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// Shared vehicles (issue 40): the bundled scenario's rides, started by each vehicle's own code
/// and ended by check-out, pass in both modes; stores that end rides wrongly are caught. The
/// check-out mutants name this suite (Scripts/mutants/mutants.py).
@Suite struct SharedVehiclesSimulationTests {
    static let folder = LifecycleTests.folder

    static func prepared(steps: Bool = true) throws -> PreparedScenario {
        var s = try Scenario.load(path: folder + "/shared-vehicles.json")
        if !steps { s.steps = [] }
        return try s.prepare(file: "shared-vehicles.json")
    }

    @Test func passesDeterministically() throws {
        let report = try Simulator.runDeterministic(Self.prepared())
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.count >= 18 && report.expectations.allSatisfy(\.pass))
        #expect((report.lifecycle?.checkedOut ?? 0) >= 20)
        #expect(report.invariants.first { $0.id == "I21" }?.status == "pass")
    }

    @Test func passesInThreadsMode() async throws {
        let p = try Self.prepared()
        let report = try await Simulator.runThreads(p, service: Scheduler(rules: p.rules), threads: 3)
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.allSatisfy { $0.pass })
        #expect((report.lifecycle?.checkedOut ?? 0) > 0)
        #expect(report.invariants.first { $0.id == "I21" }?.status == "pass")
    }

    /// A store that ends a ride that never started (it checks the booking in itself first) is
    /// caught: I21 in threads mode.
    @Test func aCheckOutWithoutACheckInIsCaught() async throws {
        let p = try Self.prepared(steps: false)
        let report = try await Simulator.runThreads(
            p, service: CheckingInOnCheckOut(inner: Scheduler(rules: p.rules)), threads: 2)
        #expect(!report.passed)
        #expect((report.invariants.first { $0.id == "I21" }?.violations ?? 0) > 0, "\(report.summary)")
    }

    /// A store that lets any code start a ride (it tries the vehicle's own after a wrong one) is
    /// caught: I21 in threads mode, at a check-in whose history line names the code it presented.
    /// One worker: its draws, and so the check-ins inside their window, do not depend on timing.
    @Test func aWrongCodeAcceptedIsCaught() async throws {
        let p = try Self.prepared(steps: false)
        let report = try await Simulator.runThreads(
            p, service: AnyCodeOpens(inner: Scheduler(rules: p.rules)), threads: 1)
        #expect(!report.passed)
        let i21 = report.invariants.first { $0.id == "I21" }
        #expect((i21?.violations ?? 0) > 0, "\(report.summary)")
        #expect(report.failures.contains { $0.message.contains("wrong access code") }, "\(report.summary)")
    }

    /// A store that answers a check-out as done but keeps the ride going is caught: the booking
    /// it said it ended is still active at the end (I6).
    @Test func aCheckOutAnsweredButNotMadeIsCaught() async throws {
        let p = try Self.prepared(steps: false)
        let report = try await Simulator.runThreads(
            p, service: CheckOutIgnoring(inner: Scheduler(rules: p.rules)), threads: 2)
        #expect(!report.passed)
        #expect((report.invariants.first { $0.id == "I6" }?.violations ?? 0) > 0, "\(report.summary)")
    }
}

/// A deliberately broken store: a check-out of a booking not checked in checks it in first.
struct CheckingInOnCheckOut: ForwardingService {
    let inner: Scheduler

    func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        do { return try inner.checkOut(id, by: user, at: now) } catch {
            guard error.reason == .notCheckedIn, let booking = inner.booking(id) else { throw error }
            let code = inner.rules.catalog.station(booking.slot.station)?.sockets.first {
                $0.id == booking.slot.socket
            }?
            .accessCode
            _ = inner.apply(.checkIn(id, user: user, accessCode: code), at: booking.start)
            return try inner.checkOut(id, by: user, at: now)
        }
    }
}

/// A deliberately broken store: a check-in refused for its code is made with the socket's own.
struct AnyCodeOpens: ForwardingService {
    let inner: Scheduler

    func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant) async throws -> Booking {
        do { return try inner.checkIn(id, by: user, accessCode: accessCode, at: now) } catch {
            guard error.reason == .wrongAccessCode, let booking = inner.booking(id) else { throw error }
            let code = inner.rules.catalog.station(booking.slot.station)?.sockets.first {
                $0.id == booking.slot.socket
            }?
            .accessCode
            return try inner.checkIn(id, by: user, accessCode: code, at: now)
        }
    }
}

/// A deliberately broken store: answers every check-out as made, makes none.
struct CheckOutIgnoring: ForwardingService {
    let inner: Scheduler

    func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        guard var booking = inner.booking(id), booking.user == user, booking.checkedInAt != nil else {
            return try inner.checkOut(id, by: user, at: now)
        }
        booking.status = .fulfilled
        booking.checkedOutAt = now
        return booking
    }
}
