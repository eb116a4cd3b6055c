import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

/// Three stations of two sockets, ten bookable days, a limit of 3 per user: small enough that
/// random requests collide on slots and limits.
enum JournalFixture {
    static let stations = (0..<3).map { i in
        Station(
            id: StationID("S\(i)"), name: "Station \(i)", city: "London", timeZone: "Europe/London",
            sockets: [Socket(id: "1", connector: .type2, powerKW: 22), Socket(id: "2", connector: .ccs, powerKW: 50)])
    }
    static let rules: Rules = {
        do { return try Rules(catalog: try Catalog(stations), policy: Policy(maxUpcomingBookings: 3)) } catch {
            preconditionFailure("fixture rules: \(error)")
        }
    }()
    static let firstDay: LocalDate = {
        do { return try LocalDate(year: 2026, month: 6, day: 2) } catch { preconditionFailure("\(error)") }
    }()
    /// Midnight UTC the day before the first bookable day.
    static let now = Instant(secondsSinceEpoch: Int64(firstDay.dayNumber - 1) * 86_400)

    static let days = 10
    /// Users the fault tests draw from.
    static let users = 300

    static func slot(_ rng: inout SplitMix64) -> Slot {
        Slot(
            station: StationID("S\(rng.below(3))"), socket: SocketID("\(1 + rng.below(2))"),
            date: LocalDate(dayNumber: firstDay.dayNumber + Int32(rng.below(days))), hour: rng.below(24))
    }

    /// A fresh directory under the system's temporary one.
    static func temporaryDirectory(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "journal-\(name)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        try? FileManager.default.removeItem(atPath: path)
        return path
    }
}

/// Socket `socket` of station `S<station>` at `hour` on the fixture's first bookable day.
func slot(_ station: Int, _ hour: Int, socket: SocketID = "1") -> Slot {
    Slot(station: StationID("S\(station)"), socket: socket, date: JournalFixture.firstDay, hour: hour)
}

/// What clients saw: every request they sent, what was acknowledged, and what was refused.
struct ClientModel: Sendable {
    /// Request id → user, for every reservation invoked.
    var invoked: [RequestID: UserID] = [:]
    /// Request id → booking, for every reservation acknowledged.
    var acknowledged: [RequestID: Booking] = [:]
    var refused: Set<RequestID> = []
    var cancelled: Set<BookingID> = []

    mutating func merge(_ other: ClientModel) {
        invoked.merge(other.invoked) { a, _ in a }
        acknowledged.merge(other.acknowledged) { a, _ in a }
        refused.formUnion(other.refused)
        cancelled.formUnion(other.cancelled)
    }

    /// The recovered bookings against what clients saw: every acknowledged booking exactly once,
    /// nothing not attempted, refused requests absent (I5), at most one booking per request id
    /// (I12), no slot held twice (I1), no user over the limit (I2). Returns the problems found.
    func problems(in bookings: [Booking], rules: Rules, now: Instant) -> [String] {
        var problems: [String] = []
        var byRequest: [RequestID: [Booking]] = [:]
        for b in bookings {
            guard let r = b.requestID else {
                problems.append("booking \(b.id) has no request id: never attempted")
                continue
            }
            byRequest[r, default: []].append(b)
            if invoked[r] != b.user { problems.append("booking \(b.id) (request \(r)) was never attempted") }
            if refused.contains(r) { problems.append("I5: request \(r) was refused but booking \(b.id) exists") }
        }
        for (r, found) in byRequest.sorted(by: { $0.key < $1.key }) where found.count > 1 {
            problems.append("I12: request \(r) has \(found.count) bookings")
        }
        for (r, acked) in acknowledged.sorted(by: { $0.key < $1.key }) {
            let found = byRequest[r] ?? []
            if found.count != 1 || found.first?.id != acked.id || found.first?.slot != acked.slot {
                problems.append("acknowledged booking \(acked.id) (request \(r)) recovered as \(found.map(\.id))")
            }
        }
        let byID = Dictionary(bookings.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for id in cancelled.sorted() where byID[id]?.status != .cancelled {
            problems.append("acknowledged cancellation of \(id) recovered as \(byID[id]?.status.rawValue ?? "missing")")
        }
        var slots: [Slot: BookingID] = [:]
        var upcoming: [UserID: Int] = [:]
        for b in bookings where b.status == .active {
            if let other = slots.updateValue(b.id, forKey: b.slot) {
                problems.append("I1: slot \(b.slot) held by \(other) and \(b.id)")
            }
            if b.start > now { upcoming[b.user, default: 0] += 1 }
        }
        for (user, n) in upcoming.sorted(by: { $0.key < $1.key }) where n > rules.policy.limit(for: user) {
            problems.append("I2: user \(user) holds \(n) upcoming bookings")
        }
        return problems
    }
}
