import Foundation
import SlotScheduler
import Synchronization
import Testing

/// Any free socket: "a socket of this station with this connector and at least this power".
@Suite("AnySocketTests")
struct AnySocketTests {
    /// Five sockets: A type 2 22 kW, B CCS 50 kW, C CCS 150 kW, D CCS 50 kW open 08–20, E type 2 11 kW.
    static let multi = Station(
        id: "MUL", name: "Multi", city: "London", timeZone: "Europe/London",
        sockets: [
            Socket(id: "A", connector: .type2, powerKW: 22), Socket(id: "B", connector: .ccs, powerKW: 50),
            Socket(id: "C", connector: .ccs, powerKW: 150),
            Socket(id: "D", connector: .ccs, powerKW: 50, openingHours: HourSet(8..<20)),
            Socket(id: "E", connector: .type2, powerKW: 11),
        ])

    /// Six identical CCS sockets for the races.
    static let six = Station(
        id: "SIX", name: "Six", city: "London", timeZone: "Europe/London",
        sockets: (1...6).map { Socket(id: SocketID("\($0)"), connector: .ccs, powerKW: 50) })

    static func rules(_ policy: Policy = Policy(maxUpcomingBookings: 100)) throws -> Rules {
        try Rules(catalog: try Catalog([Fixture.london, multi, six]), policy: policy)
    }

    static func request(
        _ connector: ConnectorType, _ power: Double, hour: Int, user: UserID, id: RequestID? = nil,
        station: StationID = "MUL"
    ) throws -> AnySocketRequest {
        AnySocketRequest(
            station: station, connector: connector, minimumPowerKW: power, date: try Fixture.day(), hour: hour,
            user: user, requestID: id)
    }

    /// The lowest-numbered free match is taken, in catalog order, until none is left.
    @Test func picksTheFirstFreeMatchInCatalogOrder() throws {
        var ledger = Ledger(rules: try Self.rules())
        let now = try Fixture.earlyNow()
        let picks = try (1...3).map {
            try ledger.reserve(try Self.request("ccs", 50, hour: 10, user: UserID($0)), at: now)
        }
        #expect(picks.map(\.slot.socket) == ["B", "C", "D"])
        let full = refusal { try ledger.reserve(try Self.request(.ccs, 50, hour: 10, user: 9), at: now) }
        #expect(full?.reason == .noMatchingSocketFree)
        #expect(full?.value == "CCS ≥ 50 kW")
        #expect(full?.reason.category == .conflict)
        // At 07:00 socket D is closed: only B and C.
        let early = try (1...2).map {
            try ledger.reserve(try Self.request(.ccs, 0, hour: 7, user: UserID($0)), at: now)
        }
        #expect(early.map(\.slot.socket) == ["B", "C"])
        #expect(
            refusal { try ledger.reserve(try Self.request(.ccs, 0, hour: 7, user: 3), at: now) }?.reason
                == .noMatchingSocketFree)
    }

    /// Power is a minimum, connectors compare normalized, and a station without any match says so.
    @Test func matchesConnectorAndMinimumPower() throws {
        var ledger = Ledger(rules: try Self.rules())
        let now = try Fixture.earlyNow()
        #expect(try ledger.reserve(try Self.request("CCS", 100, hour: 10, user: 1), at: now).slot.socket == "C")
        #expect(try ledger.reserve(try Self.request("type-2", 12, hour: 10, user: 1), at: now).slot.socket == "A")
        #expect(try ledger.reserve(try Self.request("TYPE 2", 0, hour: 10, user: 1), at: now).slot.socket == "E")
        let none = refusal { try ledger.reserve(try Self.request(.chademo, 0, hour: 10, user: 1), at: now) }
        #expect(none?.reason == .unknownSocket)
        #expect(none?.value == "CHAdeMO ≥ 0 kW")
        let tooStrong = refusal { try ledger.reserve(try Self.request(.ccs, 151, hour: 10, user: 1), at: now) }
        #expect(tooStrong?.reason == .unknownSocket)
        #expect(
            refusal { try ledger.reserve(try Self.request(.ccs, 0, hour: 10, user: 1, station: "NOPE"), at: now) }?
                .reason == .unknownStation)
        #expect(
            refusal { try ledger.reserve(try Self.request(.ccs, 0, hour: 24, user: 1), at: now) }?.reason
                == .invalidHour)
    }

    /// A 64 KiB connector name that normalizes to "ccs" books as "CCS" does, socket after socket
    /// of a six-socket station, on a ledger and a scheduler; one that normalizes to something
    /// else matches no socket. (Its name is normalized once per request, not once per socket.)
    @Test func longConnectorNamesMatchAsNormalized() throws {
        let rules = try Self.rules()
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 2)
        let now = try Fixture.earlyNow()
        let long = ConnectorType("CC" + String(repeating: "- _", count: 65_533 / 3) + "S")
        #expect(long.rawValue.utf8.count >= 65_533 && long.normalized == "ccs")
        let requests = try (1...7).map { try Self.request(long, 50, hour: 10, user: UserID($0), station: "SIX") }
        #expect(Self.six.sockets.allSatisfy(requests[0].matches))
        for (user, request) in requests.prefix(6).enumerated() {
            #expect(try ledger.reserve(request, at: now).slot.socket == SocketID("\(user + 1)"))
            #expect(try scheduler.reserve(request, at: now).slot.socket == SocketID("\(user + 1)"))
        }
        let full = refusal { try ledger.reserve(requests[6], at: now) }
        #expect(full?.reason == .noMatchingSocketFree)
        #expect(full == refusal { try scheduler.reserve(requests[6], at: now) })
        let other = try Self.request(
            ConnectorType("CCS" + String(repeating: "x", count: 65_533)), 0, hour: 11, user: 1, station: "SIX")
        #expect(refusal { try ledger.reserve(other, at: now) }?.reason == .unknownSocket)
        #expect(refusal { try scheduler.reserve(other, at: now) }?.reason == .unknownSocket)
    }

    /// Time rules come before the socket search: a past hour is `slotInPast` even when full.
    @Test func timeRulesComeFirst() throws {
        var ledger = Ledger(rules: try Self.rules())
        let late = Instant.utc(try Fixture.day(), hour: 12)
        #expect(
            refusal { try ledger.reserve(try Self.request(.ccs, 0, hour: 10, user: 1), at: late) }?.reason
                == .slotInPast)
    }

    /// A repeated request id returns the same booking; the id used for a request its booking
    /// does not satisfy is refused; the user's limit applies.
    @Test func requestIDsAndLimit() throws {
        var ledger = Ledger(rules: try Self.rules(Policy(maxUpcomingBookings: 1)))
        let now = try Fixture.earlyNow()
        let first = try ledger.book(try Self.request(.ccs, 50, hour: 10, user: 1, id: "x"), at: now)
        let again = try ledger.book(try Self.request(.ccs, 50, hour: 10, user: 1, id: "x"), at: now)
        #expect(!first.isReplay && again.isReplay && again.booking == first.booking)
        #expect(ledger.eventCount == 1)
        let other = refusal { try ledger.reserve(try Self.request(.type2, 0, hour: 10, user: 1, id: "x"), at: now) }
        #expect(other?.reason == .conflictingRequestID)
        // The same id through the ordinary reserve of the chosen slot is the same request.
        let plain = try ledger.book(ReservationRequest(slot: first.booking.slot, user: 1, requestID: "x"), at: now)
        #expect(plain.isReplay && plain.booking.id == first.booking.id)
        let limit = refusal { try ledger.reserve(try Self.request(.ccs, 50, hour: 11, user: 1), at: now) }
        #expect(limit?.reason == .userLimitReached)
    }

    /// The choice is journalled as an ordinary reservation of the chosen socket, so a replayed
    /// ledger or scheduler holds the same booking; the scheduler picks as the ledger does.
    @Test func journalledAsReservedAndReplays() throws {
        let rules = try Self.rules()
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 3)
        let now = try Fixture.earlyNow()
        for user in 1...4 {
            let request = try Self.request(.ccs, 0, hour: 9, user: UserID(UInt64(user)))
            let a = refusal { try ledger.reserve(request, at: now) }
            let b = refusal { try scheduler.reserve(request, at: now) }
            #expect(a == b)
        }
        #expect(ledger.allBookings.map(\.slot.socket) == ["B", "C", "D"])
        #expect(scheduler.allBookings.map(\.slot) == ledger.allBookings.map(\.slot))
        guard case .reserved(let booking) = ledger.events.last else {
            Issue.record("expected a reserved event, got \(ledger.events)")
            return
        }
        #expect(booking.slot.socket == "D")
        #expect(try Ledger(rules: rules, replaying: ledger.events).snapshot() == ledger.snapshot())
        #expect(try Scheduler(rules: rules, shards: 2, replaying: scheduler.events).snapshot() == scheduler.snapshot())
    }

    /// Messages in both languages name the criteria and the hour, not a socket.
    @Test func messages() throws {
        var ledger = Ledger(rules: try Self.rules())
        let now = try Fixture.earlyNow()
        for user in 1...3 {
            _ = try ledger.reserve(try Self.request(.ccs, 50, hour: 10, user: UserID(UInt64(user))), at: now)
        }
        let full = try #require(refusal { try ledger.reserve(try Self.request(.ccs, 50, hour: 10, user: 9), at: now) })
        #expect(full.message(in: .english) == "No CCS ≥ 50 kW socket is free at MUL 2018-06-10 10:00.")
        #expect(full.message(in: .turkish) == "MUL 2018-06-10 10:00 için boş CCS ≥ 50 kW soket yok.")
    }

    /// Real threads, as many as sockets, request any socket of one hour at once, hour after hour:
    /// every request gets a socket (all fill before any refusal) and no socket is given twice.
    @Test func concurrentRequestsFillEverySocket() throws {
        let scheduler = Scheduler(rules: try Self.rules(), shards: 3)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let refusals = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            for hour in 0..<24 {
                let request = AnySocketRequest(
                    station: "SIX", connector: .ccs, minimumPowerKW: 50, date: day, hour: hour,
                    user: UserID(UInt64(thread + 1)))
                if (try? scheduler.reserve(request, at: now)) == nil { refusals.add(1, ordering: .relaxed) }
            }
        }
        #expect(refusals.load(ordering: .relaxed) == 0)
        let active = scheduler.allBookings.filter { $0.status == .active }
        #expect(active.count == 6 * 24)
        #expect(Set(active.map(\.slot)).count == active.count, "a socket was given twice")
    }

    /// More real threads than sockets: per hour exactly six succeed, on six different sockets,
    /// and every other request is refused `noMatchingSocketFree`.
    @Test func concurrentOverflowIsRefused() throws {
        let scheduler = Scheduler(rules: try Self.rules(), shards: 3)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let reasons = Mutex<[Rejection.Reason]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for i in 0..<24 {
                let request = AnySocketRequest(
                    station: "SIX", connector: .ccs, date: day, hour: (i + thread) % 24,
                    user: UserID(UInt64(thread + 1)))
                if let reason = refusal({ try scheduler.reserve(request, at: now) })?.reason {
                    reasons.withLock { $0.append(reason) }
                }
            }
        }
        let active = scheduler.allBookings.filter { $0.status == .active }
        #expect(active.count == 6 * 24)
        #expect(Set(active.map(\.slot)).count == active.count, "a socket was given twice")
        let refused = reasons.withLock { $0 }
        #expect(refused.count == 10 * 24)
        #expect(refused.allSatisfy { $0 == .noMatchingSocketFree })
    }
}
