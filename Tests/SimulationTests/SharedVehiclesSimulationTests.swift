import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// Shared vehicles (issue 40): the bundled scenario's rides, started by each vehicle's own code
/// and ended by check-out, pass in both modes; stores that end rides wrongly are caught. The
/// check-out mutants name this suite (Scripts/mutants/mutants.py).
@Suite struct SharedVehiclesSimulationTests {
    static let folder = LifecycleTests.folder

    /// The bundled scenario; without its steps, and without moving vehicles (for the broken
    /// stores below that wrap a bare scheduler, whose catalog is fixed).
    static func prepared(steps: Bool = true, moves: Bool = true) throws -> PreparedScenario {
        var s = try Scenario.load(path: folder + "/shared-vehicles.json")
        if !steps { s.steps = [] }
        if !moves { s.workload?.leftWithinKm = nil }
        return try s.prepare(file: "shared-vehicles.json")
    }

    @Test func passesDeterministically() throws {
        let report = try Simulator.runDeterministic(Self.prepared())
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.count >= 18 && report.expectations.allSatisfy(\.pass))
        #expect((report.lifecycle?.checkedOut ?? 0) >= 20)
        #expect((report.lifecycle?.relocated ?? 0) >= 10)
        #expect(report.invariants.first { $0.id == "I21" }?.status == "pass")
    }

    @Test func passesInThreadsMode() async throws {
        let p = try Self.prepared()
        let store = p.memoryStore()
        #expect(store is RelocatingScheduler)
        let report = try await Simulator.runThreads(p, service: store, threads: 3)
        #expect(report.passed, "\(report.summary)")
        #expect(report.expectations.allSatisfy { $0.pass })
        #expect((report.lifecycle?.checkedOut ?? 0) > 0)
        #expect((report.lifecycle?.relocated ?? 0) >= 10)
        #expect(report.invariants.first { $0.id == "I21" }?.status == "pass")
        // The steps' first ride moved v1 (and the workload's rides may have moved it again):
        // search by distance from where it is now finds it first.
        let v1 = try #require(store.rules.catalog.station("v1")?.coordinate)
        #expect(v1 != p.rules.catalog.station("v1")?.coordinate)
        let nearest = try store.rules.catalog.search(StationQuery(near: v1, pageSize: 1)).stations.first
        #expect(nearest?.station.id == "v1" && nearest?.distanceKilometres == 0)
    }

    /// A store that answers a moving check-out as made but leaves the vehicle where it was is
    /// caught: I21, the station's place after the run.
    @Test func aCheckOutThatLeavesTheVehicleInPlaceIsCaught() async throws {
        let p = try Self.prepared(steps: false)
        let report = try await Simulator.runThreads(
            p, service: PlaceIgnoring(inner: Scheduler(rules: p.rules)), threads: 2)
        #expect(!report.passed)
        #expect((report.invariants.first { $0.id == "I21" }?.violations ?? 0) > 0, "\(report.summary)")
        #expect(report.failures.contains { $0.message.contains("after the run, where the check-outs") })
    }

    /// Runs the workload (no steps) in threads mode on the broken store `wrap` makes around a
    /// scheduler, and expects it caught: `invariant` broken, with a message saying `saying`.
    static func expectCaught(
        threads: Int, _ invariant: String, saying: String? = nil,
        _ wrap: (Scheduler) -> some BookingService
    ) async throws {
        let p = try prepared(steps: false, moves: false)
        let report = try await Simulator.runThreads(p, service: wrap(Scheduler(rules: p.rules)), threads: threads)
        #expect(!report.passed)
        #expect((report.invariants.first { $0.id == invariant }?.violations ?? 0) > 0, "\(report.summary)")
        if let saying {
            #expect(report.failures.contains { $0.message.contains(saying) }, "\(report.summary)")
        }
    }

    /// A store that ends a ride that never started (it checks the booking in itself first) is
    /// caught: I21 in threads mode.
    @Test func aCheckOutWithoutACheckInIsCaught() async throws {
        try await Self.expectCaught(threads: 2, "I21") { CheckingInOnCheckOut(inner: $0) }
    }

    /// A store that lets any code start a ride (it tries the vehicle's own after a wrong one) is
    /// caught: I21 in threads mode, at a check-in whose history line names the code it presented.
    /// One worker: its draws, and so the check-ins inside their window, do not depend on timing.
    @Test func aWrongCodeAcceptedIsCaught() async throws {
        try await Self.expectCaught(threads: 1, "I21", saying: "wrong access code") { AnyCodeOpens(inner: $0) }
    }

    /// A store that lets a ride be cancelled past the cancellation cutoff (it cancels as at an
    /// earlier moment) is caught: I6 in threads mode, by the session specification.
    @Test func aCancelPastTheCutoffIsCaught() async throws {
        try await Self.expectCaught(threads: 1, "I6", saying: "after its cutoff") { CancelPastTheCutoff(inner: $0) }
    }

    /// A store that answers a check-out as done but keeps the ride going is caught: the booking
    /// it said it ended is still active at the end (I6).
    @Test func aCheckOutAnsweredButNotMadeIsCaught() async throws {
        try await Self.expectCaught(threads: 2, "I6") { CheckOutIgnoring(inner: $0) }
    }
}

extension ForwardingService {
    /// The access code of the socket `booking` is at: what its owner's scan reads.
    func ownCode(of booking: Booking) -> String? {
        inner.rules.catalog.station(booking.slot.station)?.sockets.first { $0.id == booking.slot.socket }?.accessCode
    }
}

/// A deliberately broken store: a check-out of a booking not checked in checks it in first.
struct CheckingInOnCheckOut: ForwardingService {
    let inner: Scheduler

    func checkOut(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        do { return try inner.checkOut(id, by: user, at: now) } catch {
            guard error.reason == .notCheckedIn, let booking = inner.booking(id) else { throw error }
            _ = inner.apply(.checkIn(id, user: user, accessCode: ownCode(of: booking)), at: booking.start)
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
            return try inner.checkIn(id, by: user, accessCode: ownCode(of: booking), at: now)
        }
    }
}

/// A deliberately broken store: a cancel refused as past the cutoff is made as if before it.
struct CancelPastTheCutoff: ForwardingService {
    let inner: Scheduler

    func cancel(_ id: BookingID, by user: UserID, at now: Instant) async throws -> Booking {
        do { return try inner.cancel(id, by: user, at: now) } catch {
            guard error.reason == .cancellationCutoffPassed, let booking = inner.booking(id) else { throw error }
            let before = booking.start.secondsSinceEpoch - inner.rules.policy.cancellationCutoffSeconds - 1
            return try inner.cancel(id, by: user, at: Instant(secondsSinceEpoch: before))
        }
    }
}

/// A deliberately broken store: checks a ride out and leaves its vehicle where it was.
struct PlaceIgnoring: ForwardingService {
    let inner: Scheduler

    func checkOut(_ id: BookingID, by user: UserID, leftAt place: Coordinate, at now: Instant) async throws
        -> Booking
    { try inner.checkOut(id, by: user, at: now) }
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
