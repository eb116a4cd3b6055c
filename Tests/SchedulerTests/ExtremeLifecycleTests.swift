import Foundation
import SlotScheduler
import Testing

/// Holds, confirmations, check-ins, reschedules, retention, restores and the wire format with
/// extreme values: each is refused or answered, never a crash.
@Suite struct ExtremeLifecycleTests {
    static let instants: [Int64] = [.min, .min + 1, -1, 0, 1_528_000_000, .max - 1, .max]
    static let days: [Int32] = [.min, -1, 0, 17_692, .max]
    static let hours = [Int.min, -1, 12, 24]
    static let ids: [UInt64] = [0, 1, .max - 1, .max]
    static let durations: [Int64] = [.min, -1, 0, 1, 86_400, .max]

    static func policies() -> [Policy] {
        var result: [Policy] = []
        for seconds in durations {
            result.append(Policy(maxUpcomingBookings: 3, hold: .seconds(seconds), maxHoldsPerUser: Int(seconds % 5)))
            result.append(Policy(earlyCheckIn: .seconds(seconds), noShowGrace: .seconds(seconds)))
            result.append(Policy(rescheduleCutoff: .seconds(seconds)))
            result.append(Policy(minimumNotice: .seconds(seconds), cancellationCutoff: .seconds(seconds)))
        }
        for n in [Int.min, -1, 0, 1, Int.max] {
            result.append(Policy(earlyCheckIn: .seconds(600), noShowLimit: .init(noShows: n, days: n, limit: n)))
            result.append(
                Policy(maxUpcomingBookings: n, horizon: .rollingDays(n), userLimits: [.init(user: 1, limit: n)]))
            result.append(Policy(maxUpcomingBookings: 3, hold: .seconds(600), maxHoldsPerUser: n))
        }
        return result
    }

    @Test func lifecycleCommandsWithExtremeValues() throws {
        let catalog = try Catalog(Fixture.stations)
        var accepted = 0
        for policy in Self.policies() {
            guard let rules = try? Rules(catalog: catalog, policy: policy) else { continue }
            var ledger = Ledger(rules: rules)
            let scheduler = Scheduler(rules: rules)
            for seconds in Self.instants {
                let now = Instant(secondsSinceEpoch: seconds)
                for day in Self.days {
                    for hour in Self.hours {
                        let slot = Slot(station: "LON", socket: "1", date: LocalDate(dayNumber: day), hour: hour)
                        for user in [UserID(1), UserID(.max)] {
                            _ = try? ledger.hold(slot, for: user, reminder: .seconds(Int64.max), at: now)
                            _ = try? scheduler.hold(slot, for: user, reminder: .seconds(Int64.min), at: now)
                            if (try? ledger.confirm(slot, by: user, at: now)) != nil { accepted += 1 }
                            _ = try? scheduler.confirm(slot, by: user, at: now)
                            _ = try? ledger.releaseHold(slot, by: user, at: now)
                            _ = try? scheduler.releaseHold(slot, by: user, at: now)
                            if (try? ledger.reserve(ReservationRequest(slot: slot, user: user), at: now)) != nil {
                                accepted += 1
                            }
                            _ = try? scheduler.reserve(ReservationRequest(slot: slot, user: user), at: now)
                            _ = try? ledger.reserve(
                                AnySocketRequest(
                                    station: "LON", connector: .type2, date: slot.date, hour: hour, user: user), at: now
                            )
                            for id in Self.ids.map(BookingID.init) {
                                _ = try? ledger.checkIn(id, by: user, at: now)
                                _ = try? scheduler.checkIn(id, by: user, at: now)
                                let move = RescheduleRequest(booking: id, user: user, to: slot)
                                _ = try? ledger.reschedule(move, at: now)
                                _ = try? scheduler.reschedule(move, at: now)
                                _ = ledger.lookup(id)
                                _ = scheduler.lookup(id)
                            }
                        }
                    }
                }
                _ = ledger.holds(at: now)
                _ = scheduler.holds(at: now)
                for user in Self.ids.map(UserID.init) {
                    _ = ledger.bookings(of: user, at: now)
                    _ = scheduler.bookings(of: user, at: now)
                    _ = UserBookings(bookings: ledger.allBookings, at: now, policy: policy)
                }
            }
            #expect((try? Ledger(rules: rules, replaying: ledger.events))?.snapshot() == ledger.snapshot())
            #expect((try? Ledger(rules: rules, snapshot: scheduler.snapshot())) != nil)
        }
        #expect(accepted > 0, "some commands reach the accepted path")
    }

    @Test func retentionWithExtremeCutoffs() throws {
        let rules = try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy)
        var ledger = Ledger(rules: rules)
        _ = try? ledger.reserve(
            ReservationRequest(slot: Fixture.slot(try Fixture.day(), 12), user: 1), at: try Fixture.earlyNow())
        let scheduler = Scheduler(rules: rules)
        for day in Self.days {
            for seconds in Self.instants {
                let cutoff = LocalDate(dayNumber: day)
                let now = Instant(secondsSinceEpoch: seconds)
                _ = rules.latestReleasableDate(at: now)
                _ = try? ledger.releaseDays(before: cutoff, at: now)
                _ = try? scheduler.releaseDays(before: cutoff, at: now)
                _ = ledger.remindersDue(in: Instant(secondsSinceEpoch: .min)..<now)
            }
        }
        #expect(ledger.allBookings.allSatisfy { LocalDate.supportedRange.contains($0.slot.date) })
    }

    /// Restores from crafted bookings and events: refused with a ReplayError, never a crash.
    @Test func craftedRestores() throws {
        let rules = try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy)
        let slot = Fixture.slot(try Fixture.day(), 12)
        var bookings: [Booking] = []
        for id in Self.ids {
            for seconds in Self.instants {
                for day in Self.days {
                    var s = slot
                    s.date = LocalDate(dayNumber: day)
                    bookings.append(
                        Booking(
                            id: BookingID(id), slot: s, user: UserID(id), start: Instant(secondsSinceEpoch: seconds),
                            createdAt: Instant(secondsSinceEpoch: seconds), reminderOffsetSeconds: seconds))
                }
            }
        }
        for booking in bookings {
            let events: [Event] = [
                .reserved(booking), .cancelled(booking.id, user: booking.user, at: booking.start),
                .checkedIn(booking.id, user: booking.user, at: booking.start),
                .displaced(booking.id, user: booking.user, at: booking.start),
                .holdConfirmed(booking), .holdReleased(booking.slot, user: booking.user, at: booking.start),
                .held(
                    Hold(
                        slot: booking.slot, user: booking.user, start: booking.start, createdAt: booking.createdAt,
                        expiresAt: booking.start)),
                .rescheduled(
                    BookingMove(
                        booking: booking.id, user: booking.user, from: booking.slot, to: slot, start: booking.start),
                    at: booking.createdAt),
            ]
            for order in [events, events.reversed(), events + events] {
                _ = try? Ledger(rules: rules, replaying: order)
                _ = try? Scheduler(rules: rules, replaying: order)
            }
            _ = try? Ledger(rules: rules, snapshot: Snapshot(bookings: [booking, booking], overrides: []))
            _ = try? Ledger(rules: rules, snapshot: Snapshot(bookings: [booking], overrides: []), replaying: events)
        }
        _ = try? Ledger(rules: rules, snapshot: Snapshot(bookings: bookings, overrides: []))
    }

    /// A snapshot and its events restored into schedulers of extreme shard counts, then driven
    /// with booking ids at the ends of `UInt64` and ids the layout never issued.
    @Test func restoresAcrossExtremeShardCounts() throws {
        let rules = try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy)
        let now = try Fixture.earlyNow()
        let source = Scheduler(rules: rules, shards: 3)
        for (i, station) in ["LON", "LHR", "IST", "CKR"].enumerated() {
            let socket: SocketID = station == "LHR" ? "A" : "1"
            _ = try? source.reserve(
                ReservationRequest(
                    slot: Slot(station: StationID(station), socket: socket, date: try Fixture.day(), hour: 10 + i),
                    user: UserID(UInt64(i))), at: now)
        }
        let snapshot = source.snapshot()
        let issued = source.allBookings.map(\.id)
        #expect(issued.count == 4)
        for shards in [Int.min, -1, 0, 1, 2, 7, Int.max] {
            let restored = try Scheduler(rules: rules, shards: shards, snapshot: snapshot)
            #expect(restored.allBookings.map(\.id) == issued)
            let replayed = try Scheduler(rules: rules, shards: shards, replaying: source.events)
            #expect(replayed.allBookings.count == issued.count)
            for id in issued + [0, 1, 1 << 32, .max - 1, .max].map(BookingID.init) {
                _ = restored.booking(id)
                _ = restored.lookup(id)
                _ = try? restored.checkIn(id, by: 1, at: now)
                _ = try? restored.reschedule(
                    RescheduleRequest(booking: id, user: 1, to: Fixture.slot(try Fixture.day(), 20)), at: now)
                _ = try? restored.cancel(id, by: 0, at: now)
            }
            let fresh = try restored.reserve(
                ReservationRequest(slot: Fixture.slot(try Fixture.day(), 22), user: 9), at: now)
            #expect(restored.booking(fresh.id) == fresh)
            #expect(!issued.contains(fresh.id))
        }
    }

    /// The wire JSON of real events, snapshots, views and refusals with each number in turn
    /// replaced by one at or past the ends of the integer types: decoded or refused, and a decoded
    /// snapshot or event list restored or refused, never a crash.
    @Test func wireNumbersReplacedOneByOne() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, hold: .seconds(600)))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let booking = try ledger.reserve(
            ReservationRequest(slot: Fixture.slot(day, 10), user: 1, requestID: "r1", reminder: .seconds(600)), at: now)
        _ = try ledger.hold(Fixture.slot(day, 11), for: 2, at: now)
        _ = try ledger.reschedule(RescheduleRequest(booking: booking.id, user: 1, to: Fixture.slot(day, 12)), at: now)
        _ = try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        let refusal = try #require(refusal { try ledger.cancel(BookingID(99), by: 1, at: now) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let documents: [(Data, (Data) throws -> Void)] = [
            (
                try encoder.encode(ledger.events),
                {
                    let events = try JSONDecoder().decode([Event].self, from: $0)
                    if let restored = try? Ledger(rules: ledger.rules, replaying: events) {
                        #expect(Self.startsMatchSlots(restored), "\(events)")
                    }
                    _ = try? Scheduler(rules: ledger.rules, shards: 3, replaying: events)
                }
            ),
            (
                try encoder.encode(ledger.snapshot()),
                {
                    let snapshot = try JSONDecoder().decode(Snapshot.self, from: $0)
                    if let restored = try? Ledger(rules: ledger.rules, snapshot: snapshot) {
                        #expect(Self.startsMatchSlots(restored), "\(snapshot)")
                    }
                    _ = try? Scheduler(rules: ledger.rules, shards: 3, snapshot: snapshot)
                }
            ),
            (
                try encoder.encode(try ledger.dayView(of: "LON", on: day, at: now)),
                { _ = try JSONDecoder().decode(DayView.self, from: $0) }
            ),
            (
                try encoder.encode(ledger.bookings(of: 1, at: now)),
                { _ = try JSONDecoder().decode(UserBookings.self, from: $0) }
            ),
            (try encoder.encode(refusal), { _ = try JSONDecoder().decode(Rejection.self, from: $0) }),
            (try encoder.encode(ledger.holds(at: now)), { _ = try JSONDecoder().decode([Hold].self, from: $0) }),
        ]
        let extremes = [
            "-9223372036854775808", "9223372036854775807", "9223372036854775808", "18446744073709551615",
            "18446744073709551616", "-1", "1e400", "2147483648", "-2147483649", "0.5",
        ]
        let number = try Regex(#"-?[0-9]+(\.[0-9]+)?"#)
        var decoded = 0
        for (data, decode) in documents {
            let text = String(decoding: data, as: UTF8.self)
            try decode(data)
            for match in text.matches(of: number) {
                for value in extremes {
                    var changed = text
                    changed.replaceSubrange(match.range, with: value)
                    if (try? decode(Data(changed.utf8))) != nil { decoded += 1 }
                }
            }
        }
        #expect(decoded > 0)
    }

    /// Whether every booking restored starts when its slot does (a crafted start is refused).
    static func startsMatchSlots(_ ledger: Ledger) -> Bool {
        ledger.allBookings.allSatisfy { booking in
            let ref = try? ledger.rules.catalog.resolve(booking.slot)
            return ref.flatMap { ledger.rules.catalog.start(of: $0) } == booking.start
        }
    }

    /// Any-socket requests with odd powers, connectors, hours and reminders.
    @Test func anySocketRequestsWithOddValues() throws {
        let ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        var ledgerCopy = ledger
        let powers: [Double] = [.nan, .infinity, -.infinity, -0.0, .greatestFiniteMagnitude, 1e-300, 50]
        for power in powers {
            for connector in [
                ConnectorType.ccs, ConnectorType(""), ConnectorType(String(repeating: "x", count: 1 << 10)),
            ] {
                for hour in [Int.min, -1, 12, 24, Int.max] {
                    for reminder in [Duration.seconds(Int64.min), .seconds(Int64.max), .seconds(-1), .zero, nil] {
                        let request = AnySocketRequest(
                            station: "LON", connector: connector, minimumPowerKW: power, date: day, hour: hour,
                            user: 1, reminder: reminder)
                        _ = try? ledgerCopy.reserve(request, at: try Fixture.earlyNow())
                        _ = try? scheduler.reserve(request, at: try Fixture.earlyNow())
                        if let refusal = refusal({ try ledger.rules.resolve(request) }) {
                            #expect(!refusal.message(in: .english).isEmpty)
                        }
                    }
                }
            }
        }
        let booked = ledgerCopy.allBookings
        #expect(booked.allSatisfy { $0.slot.socket == "2" && $0.slot.hour == 12 })
        #expect(!booked.isEmpty && booked.count == scheduler.allBookings.count)
    }

    /// Wire-format JSON with numbers at and past the ends of the integer types.
    @Test func wireDecodingOfExtremeNumbers() throws {
        let numbers = [
            "-9223372036854775808", "9223372036854775807", "9223372036854775808", "18446744073709551615",
            "18446744073709551616", "-1", "1e400", "-1e400", "0.5", "1e18", "2147483648", "-2147483649",
        ]
        for n in numbers {
            for json in [
                #"{"maxUpcomingBookings":\#(n),"holdSeconds":\#(n),"noShowGraceSeconds":\#(n),"earlyCheckInSeconds":\#(n)}"#,
                #"{"secondsSinceEpoch":\#(n)}"#, #"\#(n)"#, #"[\#(n)]"#,
                #"{"id":\#(n),"user":\#(n),"start":\#(n),"createdAt":\#(n),"slot":{"station":"LON","socket":"1","date":"2018-06-10","hour":\#(n)},"reminderOffsetSeconds":\#(n),"status":"active"}"#,
            ] {
                let data = Data(json.utf8)
                _ = try? JSONDecoder().decode(Policy.self, from: data)
                _ = try? JSONDecoder().decode(Instant.self, from: data)
                _ = try? JSONDecoder().decode(Booking.self, from: data)
                _ = try? JSONDecoder().decode(Event.self, from: data)
                _ = try? JSONDecoder().decode(Snapshot.self, from: data)
                _ = try? JSONDecoder().decode(LocalDate.self, from: data)
                _ = try? JSONDecoder().decode(HourSet.self, from: data)
                _ = try? JSONDecoder().decode(BookingID.self, from: data)
                _ = try? JSONDecoder().decode(Rejection.self, from: data)
            }
        }
    }
}
