import Foundation
import PropertyBased
import SlotScheduler
import Testing

/// Extreme values for every kind of input a public entry point takes. Each generated case is a
/// list of picks; a pick below the table's size takes an entry, a larger one a scrambled value
/// from the whole range, so the cases shrink toward the table's first (ordinary) entries.
struct Picks: CustomStringConvertible {
    var values: [Int]
    var next = 0

    static let ints: [Int] = [
        0, 1, -1, 23, 24, 500, 501, Int.max, Int.min, Int.max - 1, Int.min + 1, Int(Int32.max), Int(Int32.min),
        1 << 62, -(1 << 62), Int.max / 2 + 1,
    ]
    static let strings: [String] = [
        "S0", "1", "", " ", " S0 ", "S0 ", "\u{0}", "S\u{0}0", "\u{7F}", "\u{85}", "\t1", "1\n",
        String(repeating: "x", count: 1 << 20), String(repeating: "x", count: 128), String(repeating: "é", count: 65),
        "👩‍👩‍👧‍👦", "e" + String(repeating: "\u{301}", count: 4096), "\u{202E}IST", "İstanbul", "\u{FEFF}S0",
        "\u{2028}", "ı", "IST",
    ]
    static let doubles: [Double] = [
        0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 90, -180, 1e-300,
    ]
    /// 2018-12-01T00:00:00Z, and instants at the ends of the supported range and of Int64.
    static let instants: [Int64] = [
        1_543_622_400, Int64.max, Int64.min, 0, -1, Instant.supportedRange.lowerBound.secondsSinceEpoch,
        Instant.supportedRange.upperBound.secondsSinceEpoch, Int64(Int32.max) * 86_400, Int64(Int32.min) * 86_400,
    ]
    static let days: [Int32] = [
        17_866, Int32.max, Int32.min, 0, LocalDate.supportedRange.lowerBound.dayNumber,
        LocalDate.supportedRange.upperBound.dayNumber, LocalDate.supportedRange.upperBound.dayNumber + 1,
        LocalDate.supportedRange.lowerBound.dayNumber - 1,
    ]

    var description: String { "Picks(\(values))" }

    private mutating func pick() -> Int {
        defer { next += 1 }
        return values[next % values.count]
    }
    /// A scrambled value for picks past the table: full-range bits, deterministic per pick.
    private static func scramble(_ pick: Int) -> UInt64 { UInt64(pick) &* 0x9E37_79B9_7F4A_7C15 }

    mutating func int() -> Int {
        let p = pick()
        return p < Self.ints.count ? Self.ints[p] : Int(truncatingIfNeeded: Self.scramble(p))
    }
    mutating func uint64() -> UInt64 { UInt64(bitPattern: Int64(int())) }
    mutating func string() -> String {
        let p = pick()
        return p < Self.strings.count ? Self.strings[p] : String(p)
    }
    mutating func double() -> Double {
        let p = pick()
        return p < Self.doubles.count ? Self.doubles[p] : Double(bitPattern: Self.scramble(p))
    }
    mutating func instant() -> Instant {
        let p = pick()
        return Instant(
            secondsSinceEpoch: p < Self.instants.count
                ? Self.instants[p] : Int64(truncatingIfNeeded: Self.scramble(p)))
    }
    mutating func date() -> LocalDate {
        let p = pick()
        return LocalDate(dayNumber: p < Self.days.count ? Self.days[p] : Int32(truncatingIfNeeded: Self.scramble(p)))
    }
    mutating func coordinate() -> Coordinate? {
        pick() % 3 == 0 ? nil : Coordinate(latitude: double(), longitude: double())
    }
    mutating func slot() -> Slot {
        Slot(station: StationID(string()), socket: SocketID(string()), date: date(), hour: int())
    }
    mutating func duration() -> Duration? {
        pick() % 3 == 0 ? nil : .seconds(Int64(truncatingIfNeeded: int()))
    }
}

/// No input crashes the library: every public entry point that takes numbers, dates, instants,
/// counts or strings is called with extreme ones (issue 11), and what it returns still holds
/// the library's promises (bounded ids, bounded pages, a consistent state).
@Suite struct ExtremeInputProperties {
    static let picks = Gen.int(in: 0...40).array(of: 40...40).map { Picks(values: $0) }

    static let stations = [
        Station(
            id: "S0", name: "Zero", city: "London", timeZone: "Europe/London",
            coordinate: Coordinate(latitude: 51.5, longitude: -0.1),
            sockets: [
                Socket(id: "1", connector: .type2, powerKW: 22), Socket(id: "IST", connector: .ccs, powerKW: 50),
            ],
            facilities: ["cafe"]),
        Station(
            id: "IST", name: "İstanbul Merkez", city: "İstanbul", timeZone: "Europe/Istanbul",
            sockets: [Socket(id: "1", connector: .ccs, powerKW: 150)]),
    ]

    /// Built once: reading a zone's transitions from Foundation is the slow part of a catalog.
    static let catalog = try? Catalog(stations)

    static func rules(_ p: inout Picks) -> Rules? {
        guard let catalog else { return nil }
        let horizon: Policy.Horizon =
            switch p.int() & 3 {
            case 0: .unlimited
            case 1: .lastDate(p.date())
            default: .rollingDays(p.int())
            }
        let policy = Policy(
            maxUpcomingBookings: p.int(), horizon: horizon, minimumNotice: p.duration() ?? .zero,
            cancellationCutoff: p.duration() ?? .zero, userLimits: [.init(user: UserID(p.uint64()), limit: p.int())])
        let fallback = Policy(maxUpcomingBookings: 2, horizon: .unlimited)
        do { return try Rules(catalog: catalog, policy: policy) } catch {
            #expect(!error.description.isEmpty)
            return try? Rules(catalog: catalog, policy: fallback)
        }
    }

    /// Station search with any page, size, text, place and number.
    @Test func search() async throws {
        let catalog = try Catalog(Self.stations)
        await propertyCheck(count: iterations(300), input: Self.picks) { picks in
            var p = picks
            let query = StationQuery(
                text: p.string(), city: p.int() & 1 == 0 ? nil : p.string(),
                connector: ConnectorType(p.string()), minimumPowerKW: p.int() & 1 == 0 ? nil : p.double(),
                facilities: p.int() & 1 == 0 ? [] : [p.string(), p.string()], near: p.coordinate(),
                withinKilometres: p.int() & 1 == 0 ? nil : p.double(), page: p.int(), pageSize: p.int())
            do throws(InvalidValue) {
                let page = try catalog.search(query)
                #expect(page.stations.count <= page.pageSize)
                #expect(page.totalCount <= Self.stations.count)
                if page.hasMore { #expect(!page.stations.isEmpty) }
            } catch {
                #expect(!error.field.isEmpty)
                #expect(error.value.utf8.count < 200, "an error echoes at most a bounded value")
            }
        }
    }

    /// Catalogs of stations with odd ids, powers, places and zones: built or refused, never a crash;
    /// an id that breaks ``IdentifierRule`` is always refused.
    @Test func catalog() async {
        await propertyCheck(count: iterations(300), input: Self.picks) { picks in
            var p = picks
            let stationID = p.string()
            let socketID = p.string()
            let (low, high) = (p.int(), p.int())
            let station = Station(
                id: StationID(stationID), name: p.string(), city: p.string(),
                timeZone: p.int() & 1 == 0 ? "Europe/Istanbul" : p.string(), coordinate: p.coordinate(),
                sockets: [Socket(id: SocketID(socketID), connector: .type2, powerKW: p.double())],
                openingHours: HourSet(min(low, high)..<max(low, high)))
            do throws(InvalidValue) {
                let catalog = try Catalog([station])
                #expect(IdentifierRule.isValid(stationID) && IdentifierRule.isValid(socketID))
                _ = catalog.localDate(of: station.id, at: p.instant())
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }

    /// Every command and query of a ledger and a scheduler with extreme slots, users, request
    /// ids, reminders, booking ids, dates and instants.
    @Test func commandsAndQueries() async {
        await propertyCheck(count: iterations(100), input: Self.picks) { picks in
            var p = picks
            let rules = try #require(Self.rules(&p))
            var ledger = Ledger(rules: rules, expectedUsers: p.int() & 0xFFF, expectedBookings: p.int() & 0xFFF)
            let scheduler = Scheduler(
                // Extreme shard and stripe counts are checked once in ExtremeInputTests; here they
                // stay small so each case is fast (4096 shards × 4096 stripes per case is not).
                rules: rules, shards: p.int() % 8, userStripes: p.int() % 8, expectedUsers: p.int() & 0xFFF,
                expectedBookings: p.int() & 0xFFF)
            let base = Instant(secondsSinceEpoch: 1_543_622_400)
            for _ in 0..<3 {
                let now = p.int() & 1 == 0 ? base : p.instant()
                let request = ReservationRequest(
                    slot: p.int() & 1 == 0 ? Slot(station: "S0", socket: "1", date: p.date(), hour: 10) : p.slot(),
                    user: UserID(p.uint64()), requestID: p.int() & 1 == 0 ? nil : RequestID(p.string()),
                    reminder: p.duration())
                let later = p.instant()
                for result in [
                    Result { () throws(Rejection) in try ledger.reserve(request, at: now) },
                    Result { () throws(Rejection) in try scheduler.reserve(request, at: now) },
                ] {
                    switch result {
                    case .success(let booking):
                        _ = (booking.end, booking.reminderAt, booking.isUpcoming(at: later))
                    case .failure(let error):
                        for language in MessageLanguage.allCases { #expect(!error.message(in: language).isEmpty) }
                    }
                }
                let id = BookingID(p.uint64())
                let user = UserID(p.uint64())
                _ = try? ledger.cancel(id, by: user, at: p.instant())
                _ = try? scheduler.cancel(id, by: user, at: p.instant())
                let change = AvailabilityChange(
                    station: StationID(p.string()), socket: p.int() & 1 == 0 ? nil : SocketID(p.string()),
                    date: p.date(), hours: p.int() & 1 == 0 ? nil : HourSet(mask: UInt32(truncatingIfNeeded: p.int())))
                let rule: DisplacementRule = p.int() & 1 == 0 ? .displace : .refuse
                _ = try? ledger.changeAvailability(change, onBookings: rule, at: p.instant())
                _ = try? scheduler.changeAvailability(change, onBookings: rule, at: p.instant())
                let station = StationID(p.string())
                let date = p.date()
                let at = p.instant()
                if let view = try? ledger.dayView(of: station, on: date, at: at) {
                    #expect(view.sockets.allSatisfy { $0.hours.count == 24 })
                    let hour = p.int()
                    #expect((view.status(socket: "1", hour: hour) != nil) == (0...23).contains(hour))
                }
                _ = try? scheduler.dayView(of: station, on: date, at: at)
                let slot = p.slot()
                _ = try? ledger.status(of: slot, at: at)
                _ = try? scheduler.status(of: slot, at: at)
                _ = ledger.bookings(of: user, at: at)
                _ = scheduler.bookings(of: user, at: at)
                let filter = SlotFilter(
                    city: p.string(), connector: ConnectorType(p.string()), minimumPowerKW: p.double(),
                    near: p.coordinate(), searchDays: p.int() % 40, limit: p.int())
                let free = ledger.earliestFreeSlots(matching: filter, at: at)
                #expect(free.count <= max(0, filter.limit))
                _ = scheduler.earliestFreeSlots(matching: filter, at: at)
                let (a, b) = (p.instant(), p.instant())
                _ = ledger.remindersDue(in: min(a, b)..<max(a, b))
                _ = scheduler.remindersDue(in: min(a, b)..<max(a, b))
                _ = ledger.events(since: p.int())
                _ = rules.lastBookableDate(station: Int32(truncatingIfNeeded: p.int()), at: p.instant())
                _ = rules.canCancel(start: p.instant(), at: p.instant())
                #expect(Self.catalogQueries(rules.catalog, &p))
            }
            // What was stored stays bounded and consistent.
            for booking in ledger.allBookings + scheduler.allBookings {
                if let id = booking.requestID { #expect(IdentifierRule.isValid(id.rawValue)) }
                #expect(LocalDate.supportedRange.contains(booking.slot.date))
            }
            #expect((try? Ledger(rules: rules, replaying: ledger.events))?.snapshot() == ledger.snapshot())
            #expect((try? Ledger(rules: rules, snapshot: scheduler.snapshot())) != nil)
        }
    }

    /// Resolves an extreme slot and looks up an extreme station id; whether no odd id is found.
    private static func catalogQueries(_ catalog: Catalog, _ p: inout Picks) -> Bool {
        if let ref = try? catalog.resolve(p.slot()) {
            _ = catalog.start(of: ref)
            _ = catalog.slot(ref)
        }
        let id = p.string()
        return catalog.station(StationID(id)) == nil || ["S0", "IST"].contains(id)
    }

    /// Time values: instants, dates, hour sets and refusals built from extreme numbers.
    @Test func timeValues() async {
        await propertyCheck(count: iterations(500), input: Self.picks) { picks in
            var p = picks
            let instant = p.instant()
            #expect(instant.description.hasSuffix("Z"))
            _ = instant + .seconds(Int64(truncatingIfNeeded: p.int()))
            _ = instant - .seconds(Int64(truncatingIfNeeded: p.int()))
            let date = p.date()
            #expect(date.description.count >= 8)
            _ = date.adding(days: p.int())
            _ = Instant.utc(date, hour: p.int(), minute: p.int(), second: p.int())
            _ = try? LocalDate(year: p.int(), month: p.int(), day: p.int())
            _ = try? LocalDate(parsing: p.string())
            _ = try? HourSet([p.int(), p.int()])
            let hours = HourSet(min(p.int(), 0)..<max(0, p.int()))
            #expect(hours.count <= 24)
            let booking = Booking(
                id: BookingID(p.uint64()), slot: p.slot(), user: UserID(p.uint64()), start: p.instant(),
                createdAt: p.instant(), reminderOffsetSeconds: Int64(truncatingIfNeeded: p.int()))
            _ = (booking.end, booking.reminderAt, booking.isUpcoming(at: p.instant()))
            let rejection = Rejection(
                Rejection.Reason.allCases[abs(p.int() % Rejection.Reason.allCases.count)], slot: p.slot(),
                booking: BookingID(p.uint64()), user: UserID(p.uint64()), requestID: RequestID(p.string()),
                value: p.string(), limit: p.int(), instant: p.instant(), date: p.date())
            for language in MessageLanguage.allCases { #expect(!rejection.message(in: language).isEmpty) }
        }
    }
}
