import Foundation
import SlotScheduler
import Testing

@Suite("Bad input is refused with a typed error")
struct BadInputTests {
    private static func station(
        id: StationID = "S", timeZone: String = "Europe/London", coordinate: Coordinate? = nil,
        sockets: [Socket] = [Socket(id: "1", connector: .type2, powerKW: 22)]
    ) -> Station {
        Station(id: id, name: "Name", city: "City", timeZone: timeZone, coordinate: coordinate, sockets: sockets)
    }

    /// Duplicate station ids are refused, naming the second one's path.
    @Test func duplicateStationID() {
        let error = invalidValue { try Catalog([Self.station(id: "A"), Self.station(id: "B"), Self.station(id: "A")]) }
        #expect(error?.field == "stations[2].id")
        #expect(error?.value == "A")
    }

    /// An empty station id is refused.
    @Test func emptyStationID() {
        #expect(invalidValue { try Catalog([Self.station(id: "")]) }?.field == "stations[0].id")
    }

    /// An unknown IANA time zone is refused.
    @Test func unknownTimeZone() {
        let error = invalidValue { try Catalog([Self.station(), Self.station(id: "T", timeZone: "Mars/Olympus")]) }
        #expect(error?.field == "stations[1].timeZone")
        #expect(error?.value == "Mars/Olympus")
        #expect(error?.description.contains("IANA") == true)
    }

    /// Zero, negative, infinite and NaN power are refused, naming the socket.
    @Test(arguments: [0, -1, Double.infinity, Double.nan, 10_001])
    func badPower(power: Double) {
        let sockets = [
            Socket(id: "1", connector: .type2, powerKW: 22), Socket(id: "2", connector: .ccs, powerKW: power),
        ]
        #expect(
            invalidValue { try Catalog([Self.station(sockets: sockets)]) }?.field == "stations[0].sockets[1].powerKW")
    }

    /// A station without sockets is refused.
    @Test func emptySockets() {
        let error = invalidValue { try Catalog([Self.station(sockets: [])]) }
        #expect(error?.field == "stations[0].sockets")
        #expect(error?.value == "0")
    }

    /// Duplicate or empty socket ids within a station are refused.
    @Test func badSocketIDs() {
        let twice = [Socket(id: "1", connector: .type2, powerKW: 22), Socket(id: "1", connector: .ccs, powerKW: 50)]
        #expect(invalidValue { try Catalog([Self.station(sockets: twice)]) }?.field == "stations[0].sockets[1].id")
        let empty = [Socket(id: "", connector: .type2, powerKW: 22)]
        #expect(invalidValue { try Catalog([Self.station(sockets: empty)]) }?.field == "stations[0].sockets[0].id")
    }

    /// Coordinates outside the globe are refused.
    @Test(arguments: [(91.0, 0.0), (-90.5, 0.0), (0.0, 180.5), (0.0, -181.0), (Double.nan, 0.0)])
    func badCoordinates(latitude: Double, longitude: Double) {
        let station = Self.station(coordinate: Coordinate(latitude: latitude, longitude: longitude))
        #expect(invalidValue { try Catalog([station]) }?.field == "stations[0].coordinate")
    }

    /// A valid catalog interns stations and sockets.
    @Test func validCatalog() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(catalog.socketCount == 8)
        #expect(catalog.station("IST")?.city == "İstanbul")
        #expect(catalog.station("nope") == nil)
    }

    /// Negative limits, notices, cutoffs, horizons and duplicate per-user overrides are refused with their field.
    @Test func policyValidation() {
        #expect(invalidValue { try Policy(maxUpcomingBookings: -1).validated() }?.field == "policy.maxUpcomingBookings")
        #expect(
            invalidValue { try Policy(horizon: .rollingDays(-1)).validated() }?.field == "policy.horizon.rollingDays")
        #expect(
            invalidValue { try Policy(minimumNotice: .seconds(-1)).validated() }?.field == "policy.minimumNoticeSeconds"
        )
        #expect(
            invalidValue { try Policy(cancellationCutoff: .seconds(-60)).validated() }?.field
                == "policy.cancellationCutoffSeconds")
        #expect(
            invalidValue { try Policy(userLimits: [.init(user: 1, limit: -2)]).validated() }?.field
                == "policy.userLimits[0].limit")
        #expect(
            invalidValue { try Policy(userLimits: [.init(user: 1, limit: 2), .init(user: 1, limit: 3)]).validated() }?
                .field == "policy.userLimits[1].user")
        #expect(invalidValue { try Policy(maxUpcomingBookings: 3).validated() } == nil)
    }

    /// Building rules, a ledger or a scheduler validates the policy.
    @Test func rulesValidatePolicy() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(invalidValue { try Rules(catalog: catalog, policy: Policy(maxUpcomingBookings: -1)) } != nil)
        #expect(
            invalidValue { try Scheduler(stations: Fixture.stations, policy: Policy(maxUpcomingBookings: -1)) }?.field
                == "policy.maxUpcomingBookings")
    }

    /// Dates that do not exist or are not written YYYY-MM-DD are refused.
    @Test(arguments: [
        "2018-02-30", "2018-2-3", "2018-13-01", "2018-00-10", "18-02-03", "2018/02/03", "", "2018-02-03x",
        // Found through the example service: `Int("+1")` is 1, so these were read as 2026-01-01.
        "2026-+1-01", "2026-01-+1", "+026-01-01", "2026-٠١-01",
    ])
    func badDates(text: String) {
        let error = invalidValue { try LocalDate(parsing: text) }
        #expect(error?.field == "date")
        #expect(error?.value == text)
    }

    /// Leap days exist only in leap years; years outside 1900...2399 are refused.
    @Test func leapDaysAndYears() throws {
        #expect(try LocalDate(parsing: "2020-02-29").description == "2020-02-29")
        #expect(invalidValue { try LocalDate(parsing: "2019-02-29") } != nil)
        #expect(invalidValue { try LocalDate(parsing: "2100-02-29") } != nil)
        #expect(try LocalDate(parsing: "2000-02-29").day == 29)
        #expect(invalidValue { try LocalDate(year: 1899, month: 12, day: 31) }?.field == "year")
        #expect(invalidValue { try LocalDate(year: 2018, month: 2, day: 30) }?.field == "day")
        #expect(try LocalDate(parsing: "1970-01-01").dayNumber == 0)
    }

    /// HourSet refuses hours outside 0–23 and decoding refuses them too.
    @Test func hourSet() throws {
        #expect(invalidValue { try HourSet([8, 24]) }?.field == "hour")
        #expect(invalidValue { try HourSet([-1]) }?.value == "-1")
        #expect(try HourSet([23, 0, 5]).map { $0 } == [0, 5, 23])
        #expect(HourSet(20..<30).map { $0 } == [20, 21, 22, 23])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(HourSet.self, from: Data("[24]".utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(LocalDate.self, from: Data("\"2018-02-30\"".utf8))
        }
    }

    /// Every refused command leaves the ledger exactly as it was: snapshot, journal and queries.
    @Test func refusedCommandsChangeNothing() throws {
        var ledger = try Fixture.ledger(
            Policy(maxUpcomingBookings: 2, minimumNotice: .seconds(3_600), cancellationCutoff: .seconds(3_600)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 6)
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "a"), at: now)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 8), user: 2), at: now)
        try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        let snapshot = ledger.snapshot()
        let events = ledger.events
        let view = try ledger.dayView(of: "LON", on: day, at: now)
        let commands: [(String, (inout Ledger) throws -> Void)] = [
            (
                "unknown station",
                { _ = try $0.reserve(Fixture.request(Fixture.slot("X", "1", day, 12), user: 3), at: now) }
            ),
            (
                "unknown socket",
                { _ = try $0.reserve(Fixture.request(Fixture.slot("LON", "X", day, 12), user: 3), at: now) }
            ),
            ("invalid hour", { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 24), user: 3), at: now) }),
            ("past", { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 1), user: 3), at: now) }),
            ("too soon", { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 7), user: 3), at: now) }),
            ("closed", { _ = try $0.reserve(Fixture.request(Fixture.slot("LON", "2", day, 12), user: 3), at: now) }),
            ("outside", { _ = try $0.reserve(Fixture.request(Fixture.slot("LON", "3", day, 22), user: 3), at: now) }),
            ("taken", { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 10), user: 3), at: now) }),
            ("limit", { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 12), user: 1), at: now) }),
            ("request id", { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 13), user: 1, id: "a"), at: now) }),
            (
                "reminder",
                { _ = try $0.reserve(Fixture.request(Fixture.slot(day, 13), user: 3, reminder: .seconds(-1)), at: now) }
            ),
            (
                "reminder past",
                {
                    _ = try $0.reserve(
                        Fixture.request(Fixture.slot(day, 13), user: 3, reminder: .seconds(86_400)), at: now)
                }
            ),
            ("not owner", { try $0.cancel(a.id, by: 2, at: now) }),
            ("cutoff", { try $0.cancel(a.id, by: 1, at: a.start - .seconds(60)) }),
            ("unknown booking", { try $0.cancel(BookingID(77), by: 1, at: now) }),
            (
                "refuse",
                { try $0.changeAvailability(.close("LON", socket: nil, on: day), onBookings: .refuse, at: now) }
            ),
            ("bad change", { try $0.changeAvailability(.close("LON", socket: "X", on: day), at: now) }),
        ]
        for (name, command) in commands {
            var copy = ledger
            let r = refusal { try command(&copy) }
            #expect(r != nil, "\(name) was not refused")
            #expect(copy.snapshot() == snapshot, "\(name) changed the snapshot")
            #expect(copy.events == events, "\(name) changed the journal")
            #expect(try copy.dayView(of: "LON", on: day, at: now) == view, "\(name) changed the day view")
            #expect(copy.bookings(of: 1, at: now) == ledger.bookings(of: 1, at: now), "\(name) changed user 1")
            // Applying the command to the original leaves it unchanged too (not just the copy).
            _ = refusal { try command(&ledger) }
            #expect(ledger.snapshot() == snapshot)
        }
    }
}
