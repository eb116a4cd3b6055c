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

    /// Restores from crafted bookings and events: refused with a ReplayError, never a crash. The
    /// ledger and the scheduler agree on which restore; whatever restores rebuilds itself from its
    /// own journal; a snapshot naming one booking id twice is refused; and the ordinary
    /// reservation among the crafted ones restores.
    @Test func craftedRestores() throws {
        let rules = try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy)
        let slot = Fixture.slot(try Fixture.day(), 12)
        var source = Ledger(rules: rules)
        let ordinary = try source.reserve(ReservationRequest(slot: slot, user: 1), at: try Fixture.earlyNow())
        var bookings: [Booking] = [ordinary]
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
        var restored = 0
        var refused = 0
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
            for order in [[events[0]], events, events.reversed(), events + events] {
                let ledger = try? Ledger(rules: rules, replaying: order)
                let scheduler = try? Scheduler(rules: rules, replaying: order)
                #expect((ledger == nil) == (scheduler == nil), "ledger and scheduler disagree on \(order)")
                if let ledger {
                    restored += 1
                    #expect((try? Ledger(rules: rules, replaying: ledger.events))?.snapshot() == ledger.snapshot())
                    #expect(scheduler?.snapshot() == ledger.snapshot(), "the scheduler restored another state")
                } else {
                    refused += 1
                }
            }
            #expect(
                (try? Ledger(rules: rules, snapshot: Snapshot(bookings: [booking, booking], overrides: []))) == nil)
            if let ledger = try? Ledger(
                rules: rules, snapshot: Snapshot(bookings: [booking], overrides: []), replaying: events)
            {
                #expect(ledger.allBookings.contains { $0.id == booking.id })
            }
        }
        #expect((try? Ledger(rules: rules, replaying: [.reserved(ordinary)]))?.allBookings == [ordinary])
        #expect(restored > 0 && refused > 0, "restored \(restored), refused \(refused)")
        #expect((try? Ledger(rules: rules, snapshot: Snapshot(bookings: bookings, overrides: []))) == nil)
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

    /// A JSON number and the integer it denotes in each integer type, if any. A number in exponent
    /// form (`1e18`) is not `strict`: a decoder may read it as the integer it denotes or refuse
    /// it, but never read another value.
    struct WireNumber: CustomStringConvertible {
        var text: String
        var int64: Int64?
        var uint64: UInt64?
        var strict = true
        var description: String { text }
    }

    static let wireNumbers: [WireNumber] = [
        WireNumber(text: "-9223372036854775808", int64: .min, uint64: nil),
        WireNumber(text: "9223372036854775807", int64: .max, uint64: UInt64(Int64.max)),
        WireNumber(text: "9223372036854775808", int64: nil, uint64: UInt64(Int64.max) + 1),
        WireNumber(text: "18446744073709551615", int64: nil, uint64: .max),
        WireNumber(text: "18446744073709551616", int64: nil, uint64: nil),
        WireNumber(text: "-1", int64: -1, uint64: nil), WireNumber(text: "0", int64: 0, uint64: 0),
        WireNumber(text: "12", int64: 12, uint64: 12), WireNumber(text: "24", int64: 24, uint64: 24),
        WireNumber(text: "1e400", int64: nil, uint64: nil), WireNumber(text: "-1e400", int64: nil, uint64: nil),
        WireNumber(text: "0.5", int64: nil, uint64: nil),
        WireNumber(text: "1e18", int64: 1_000_000_000_000_000_000, uint64: 1_000_000_000_000_000_000, strict: false),
        WireNumber(text: "2147483648", int64: 2_147_483_648, uint64: 2_147_483_648),
        WireNumber(text: "-2147483649", int64: -2_147_483_649, uint64: nil),
    ]

    /// Decodes `json` as a `T`, or `nil` when the decoder throws.
    static func decoded<T: Decodable>(_ type: T.Type, _ json: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(json.utf8))
    }

    /// Checks that `value` (decoded from a JSON holding `number`) is there exactly when `expected`
    /// is, and then matches it; for a number that is not strict, a refusal is accepted too.
    static func expectDecoded<T: Equatable, E>(
        _ value: T?, _ expected: E?, _ number: WireNumber, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        matches: (T, E) -> Bool
    ) {
        switch (value, expected) {
        case (let value?, let expected?):
            #expect(matches(value, expected), "\(what) from \(number) read \(value)", sourceLocation: sourceLocation)
        case (let value?, nil):
            Issue.record("\(what) from \(number) read \(value); it should throw", sourceLocation: sourceLocation)
        case (nil, _?):
            #expect(!number.strict, "\(what) from \(number) threw; it fits", sourceLocation: sourceLocation)
        case (nil, nil): break
        }
    }

    /// Wire-format JSON with numbers at and past the ends of the integer types: a field decodes to
    /// exactly the number written when the number fits the field's type (Int64 for `Int`, seconds
    /// and instants; UInt64 for ids), and the decode throws, never traps, when it does not.
    @Test func wireDecodingOfExtremeNumbers() throws {
        for number in Self.wireNumbers {
            let n = number.text
            // Int64 fields and an Int: every one decodes n or the policy is refused; it validates
            // only when n fits every range (hold 1...86400 s, grace 0...3600 s).
            let policy = Self.decoded(
                Policy.self,
                #"{"maxUpcomingBookings":\#(n),"horizon":{"unlimited":{}},"minimumNoticeSeconds":0,"#
                    + #""cancellationCutoffSeconds":0,"userLimits":[],"holdSeconds":\#(n),"#
                    + #""noShowGraceSeconds":\#(n),"earlyCheckInSeconds":\#(n)}"#)
            Self.expectDecoded(policy, number.int64, number, "Policy") { p, v in
                p.maxUpcomingBookings == Int(v) && p.holdSeconds == v && p.noShowGraceSeconds == v
                    && p.earlyCheckInSeconds == v
            }
            if let policy {
                let valid = number.int64.map { (1...3_600).contains($0) } ?? false
                #expect(((try? policy.validated()) != nil) == valid, "Policy from \(n) validated: \(!valid)")
            }
            // Instants are one value (seconds or ISO 8601 text), never an object.
            Self.expectDecoded(Self.decoded(Instant.self, n), number.int64, number, "Instant") {
                $0.secondsSinceEpoch == $1
            }
            #expect(Self.decoded(Instant.self, #"{"secondsSinceEpoch":\#(n)}"#) == nil)
            // Ids are unsigned.
            Self.expectDecoded(Self.decoded(BookingID.self, n), number.uint64, number, "BookingID") {
                $0.rawValue == $1
            }
            Self.expectDecoded(Self.decoded(UserID.self, n), number.uint64, number, "UserID") { $0.rawValue == $1 }
            // Dates are text; hours 0...23.
            #expect(Self.decoded(LocalDate.self, n) == nil, "LocalDate from \(n)")
            let hour = number.int64.flatMap { (0...23).contains($0) ? $0 : nil }
            Self.expectDecoded(Self.decoded(HourSet.self, "[\(n)]"), hour, number, "HourSet") {
                Array($0) == [Int($1)]
            }
            // A booking with n as id, user, hour, start, creation and reminder: it decodes when n
            // fits both an id and an instant (0...Int64.max), in a bare event, a journal event and
            // a snapshot alike.
            let booking =
                #"{"id":\#(n),"user":\#(n),"start":\#(n),"createdAt":\#(n),"#
                + #""slot":{"station":"LON","socket":"1","date":"2018-06-10","hour":\#(n)},"#
                + #""reminderSeconds":\#(n),"status":"active"}"#
            let both = number.uint64 != nil ? number.int64 : nil
            let matches = { (b: Booking, v: Int64) in
                b.id.rawValue == UInt64(v) && b.user.rawValue == UInt64(v) && b.slot.hour == Int(v)
                    && b.start.secondsSinceEpoch == v && b.createdAt.secondsSinceEpoch == v
                    && b.reminderOffsetSeconds == v && b.status == .active
            }
            Self.expectDecoded(Self.decoded(Booking.self, booking), both, number, "Booking", matches: matches)
            Self.expectDecoded(
                Self.decoded(Event.self, #"{"version":1,"type":"reserved","booking":\#(booking)}"#), both, number,
                "Event"
            ) { event, v in
                guard case .reserved(let b) = event else { return false }
                return matches(b, v)
            }
            Self.expectDecoded(
                Self.decoded(Event.self, #"{"version":1,"type":"cancelled","booking":\#(n),"user":\#(n),"at":\#(n)}"#),
                both, number, "cancelled Event"
            ) { event, v in
                event == .cancelled(BookingID(UInt64(v)), user: UserID(UInt64(v)), at: Instant(secondsSinceEpoch: v))
            }
            Self.expectDecoded(
                Self.decoded(Snapshot.self, #"{"version":1,"bookings":[\#(booking)],"overrides":[]}"#), both, number,
                "Snapshot"
            ) { snapshot, v in snapshot.bookings.count == 1 && matches(snapshot.bookings[0], v) }
            #expect(Self.decoded(Event.self, booking) == nil, "a booking is not an event")
            // A refusal's limit and offset are Ints.
            Self.expectDecoded(
                Self.decoded(Rejection.self, #"{"reason":"userLimitReached","limit":\#(n),"utcOffsetSeconds":\#(n)}"#),
                number.int64, number, "Rejection"
            ) { r, v in r.reason == .userLimitReached && r.limit == Int(v) && r.utcOffsetSeconds == Int(v) }
        }
    }
}
