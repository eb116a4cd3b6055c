import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

@Suite struct BadInput {
    func baseJSON() throws -> [String: Any] {
        var s = Fixtures.small()
        s.steps = [Step(op: .reserve, user: 1, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9)]
        let object = try JSONSerialization.jsonObject(with: Fixtures.encode(s))
        return try #require(object as? [String: Any])
    }

    func error(_ mutate: (inout [String: Any]) -> Void) throws -> ScenarioError? {
        var object = try baseJSON()
        mutate(&object)
        let data = try JSONSerialization.data(withJSONObject: object)
        return error(data)
    }

    func error(_ data: Data) -> ScenarioError? {
        do {
            _ = try Scenario.decode(data, file: "bad.json").prepare(file: "bad.json")
            return nil
        } catch { return error }
    }

    func set(_ object: inout [String: Any], _ path: [String], _ value: Any) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[first] = value
            return
        }
        if let index = Int(path[1]), var array = object[first] as? [[String: Any]] {
            set(&array[index], Array(path.dropFirst(2)), value)
            object[first] = array
        } else {
            var inner = object[first] as? [String: Any] ?? [:]
            set(&inner, Array(path.dropFirst()), value)
            object[first] = inner
        }
    }

    @Test func baseIsValid() throws {
        #expect(try error { _ in } == nil)
    }

    @Test func malformedJSON() {
        let e = error(Data("{\"version\": 1, \"name\": ".utf8))
        #expect(e?.expected == "valid JSON")
        #expect(e?.file == "bad.json")
    }

    @Test(
        arguments: [
            (["users", "count"], "\"many\"", "users.count", "an integer"),
            (["seed"], "-1", "seed", "an integer"),
            (["stations", "0", "sockets", "0", "powerKW"], "\"fast\"", "stations[0].sockets[0].powerKW", "a number"),
            (["steps", "0", "station"], "\"nowhere\"", "steps[0].station", "one of the scenario's stations"),
            (["steps", "0", "socket"], "\"9\"", "steps[0].socket", "a socket of station s1"),
            (["steps", "0", "hour"], "24", "steps[0].hour", "an hour 0...23"),
            (["stations", "0", "openingHours"], "[8, 24]", "stations[0].openingHours", "an hour 0...23"),
            (["users", "count"], "-5", "users.count", "1...10000000 users"),
            (["workload", "operations"], "-1", "workload.operations", "0...100000000 operations"),
            (["workload", "mix", "cancel"], "-3", "workload.mix.cancel", "a weight"),
            (["workload", "dates", "from"], "\"2018-02-30\"", "workload.dates.from", "a day 1...28"),
            (["steps", "0", "date"], "\"June 7th\"", "steps[0].date", "YYYY-MM-DD"),
            (["clock", "start"], "\"yesterday\"", "clock.start", "a UTC time"),
            (["stations", "0", "timeZone"], "\"Mars/Olympus_Mons\"", "stations[0].timeZone", "IANA time zone"),
            (["users", "count"], "1000000000", "users.count", "1...10000000 users"),
            (["workload", "dates", "days"], "100000", "workload.dates.days", "1...3660 days"),
            (["version"], "2", "version", "1"),
            (["policy", "maxUpcomingBookings"], "-1", "policy.maxUpcomingBookings", "a count"),
            (["workload", "hotness", "share"], "1.5", "workload.hotness.share", "a fraction"),
            (["typo"], "1", "typo", "one of"),
            // A negative id, which the decoder refused naming no field.
            (["steps", "0", "user"], "-1", "steps[0].user", "an integer 0...18446744073709551615"),
            (["users", "firstID"], "-5", "users.firstID", "an integer 0...18446744073709551615"),
            // A key a closed object does not have (a typo that dropped a setting silently).
            (["workload", "mix", "cancle"], "3", "workload.mix.cancle", "one of anySocket, availability, cancel"),
            (["policy", "maxUpcomingBooking"], "3", "policy.maxUpcomingBooking", "maxUpcomingBookings"),
            (["steps", "0", "lable"], "\"x\"", "steps[0].lable", "label"),
            (["stations", "0", "sockets", "0", "powerkw"], "22", "stations[0].sockets[0].powerkw", "powerKW"),
            // A name outside a closed set lists the set (it said "a value in range for this field").
            (["steps", "0", "op"], "\"book\"", "steps[0].op", "one of reserve, cancel, changeAvailability"),
            (["steps", "0", "onBookings"], "\"ignore\"", "steps[0].onBookings", "one of displace, refuse"),
            // The core's IdentifierRule, enforced by the scenario's validation too (issue 11).
            (["steps", "0", "requestID"], "\" r1\"", "steps[0].requestID", "without leading whitespace"),
            (["steps", "0", "requestID"], "\"\"", "steps[0].requestID", "a non-empty identifier"),
            (["steps", "0", "requestID"], "\"r\\u0000\"", "steps[0].requestID", "without control characters"),
            (["stations", "0", "id"], "\"s1 \"", "stations[0].id", "without trailing whitespace"),
            // Resources that move (issue 40): only a check-out leaves one somewhere, on Earth, and
            // a workload that moves stations needs each one's place.
            (["steps", "0", "leftAt"], "{\"latitude\": 1, \"longitude\": 2}", "steps[0].leftAt", "on a checkOut step"),
            (["steps", "0", "accessCode"], "\"QR-1\"", "steps[0].accessCode", "on a checkIn step"),
            (["workload", "leftWithinKm"], "-0.5", "workload.leftWithinKm", "0...100 km"),
            (["workload", "leftWithinKm"], "1.5", "stations[0].coordinate", "a coordinate"),
        ] as [([String], String, String, String)])
    func refusedWithPath(path: [String], json: String, expectedPath: String, expected: String) throws {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        let e = try error { set(&$0, path, value) }
        let found = try #require(e, "\(expectedPath) should be refused")
        #expect(found.path == expectedPath, "\(found)")
        #expect(found.expected.contains(expected), "\(found)")
        #expect(found.file == "bad.json")
        #expect(!found.value.isEmpty)
    }

    /// An escaped high surrogate without its low half, in a key or a value, is refused as the
    /// decoder refuses it (the scan's arithmetic overflowed on it and trapped before); an escaped
    /// pair is one scalar.
    @Test func loneHighSurrogateEscapeIsRefused() throws {
        let base = String(decoding: try JSONSerialization.data(withJSONObject: try baseJSON()), as: UTF8.self)
        for extra in ["\"\\uD800\\u0041\": 1,", "\"typo\": \"\\uDBFF\\uD800\",", "\"typo\": \"\\uD800\\n\","] {
            let lone = try #require(error(Data(("{" + extra + base.dropFirst()).utf8)), "\(extra)")
            #expect(lone.expected == "valid JSON", "\(lone)")
            #expect(lone.file == "bad.json")
        }
        let pair = try #require(error(Data(("{\"\\uD83D\\uDE00\": 1," + base.dropFirst()).utf8)))
        #expect(pair.path == "\u{1F600}", "\(pair)")
        #expect(pair.expected.contains("one of"), "\(pair)")
    }

    /// A check-out step's place must be on Earth; a fraction is read where a place or a distance
    /// belongs (the scan's list of decimal fields), an any-socket step's least power included.
    @Test func placesAndDistancesAreRead() throws {
        let offEarth = try error {
            $0["steps"] = [
                [
                    "op": "reserve", "user": 1, "station": "s1", "socket": "1", "date": "2018-06-07", "hour": 9,
                    "label": "a",
                ],
                ["op": "checkOut", "user": 1, "booking": "a", "leftAt": ["latitude": 90.5, "longitude": 0.25]],
            ]
        }
        #expect(offEarth?.path == "steps[1].leftAt" && offEarth?.expected.contains("a place on Earth") == true)
        let fine = try error {
            set(&$0, ["stations", "0", "coordinate"], ["latitude": 56.5, "longitude": -2.75])
            set(&$0, ["workload", "leftWithinKm"], 0.5)
            $0["steps"] = [
                [
                    "op": "reserve", "user": 1, "station": "s1", "socket": "1", "date": "2018-06-07", "hour": 9,
                    "label": "a",
                ],
                ["op": "checkOut", "user": 1, "booking": "a", "leftAt": ["latitude": 56.25, "longitude": -2.5]],
                [
                    "op": "anySocket", "user": 2, "station": "s1", "connector": "CCS", "minimumPowerKW": 7.5,
                    "date": "2018-06-07", "hour": 10,
                ],
            ]
        }
        #expect(fine == nil, "\(String(describing: fine))")
    }

    @Test func missingField() throws {
        let e = try error { $0["clock"] = nil }
        #expect(e?.path == "clock")
        #expect(e?.expected == "a required field")
    }

    @Test func cancelOfUnknownLabel() throws {
        let e = try error {
            $0["steps"] = [["op": "cancel", "user": 1, "booking": "nope"]]
        }
        #expect(e?.path == "steps[0].booking")
    }

    @Test func missingFileIsRefused() {
        #expect(throws: ScenarioError.self) { try Scenario.load(path: "/nonexistent/scenario.json") }
    }
}

@Suite struct Importer {
    @Test func dundeeRowsBecomeStepsAndSkipsAreCounted() throws {
        let csv = """
            Charging event,User ID,CP ID,Connector,Start Date,Start Time,End Date,End Time,Total kWh,Cost,Site,Group,Model,,,
            3,601,50914,1,06/09/2018,10:55,06/09/2018,12:03,22.2,0,"Lochee Charging Hub, Dundee",G,APT 22kW Dual Outlet,,,
            2,602H,50914,1,06/09/2018,10:05,,,7.0,0,"Lochee Charging Hub, Dundee",G,APT 22kW Dual Outlet,,,
            1,603,50349,2,06/09/2018,09:38,06/09/2018,09:48,7.08,0,"Greenmarket Multi Car Park, Dundee",G,APT Dual Rapid Charger,,,
            1,603,50349,2,06/09/2018,09:38,06/09/2018,09:48,7.08,0,"Greenmarket Multi Car Park, Dundee",G,APT Dual Rapid Charger,,,
            4,604,50349,2,31/09/2018,09:38,,,1,0,"Greenmarket Multi Car Park, Dundee",G,APT Dual Rapid Charger,,,
            broken row
            """
        let path = Fixtures.temporaryPath("dundee.csv")
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scenario = try DundeeImporter.makeScenario(csvPath: path, leadHours: 3)
        #expect(scenario.stations.map(\.id.rawValue) == ["greenmarket-multi-car-park", "lochee-charging-hub"])
        #expect(scenario.stations[0].sockets.first?.powerKW == 50)
        #expect(scenario.steps?.count == 3)
        #expect(scenario.provenance?.skipped["duplicate session id"] == 1)
        #expect(scenario.provenance?.skipped["unparseable start date or time"] == 1)
        #expect(scenario.provenance?.skipped["malformed row (fewer columns than the header needs)"] == 1)
        #expect(scenario.attribution?.contains("Open Government Licence v3.0") == true)
        let report = try Simulator.runDeterministic(scenario.prepare(file: "dundee.json"))
        #expect(report.verdict == "pass", "\(report.summary)")
        // 10:05 and 10:55 on one connector collide.
        #expect(report.refusedByReason.first { $0.reason == "slotTaken" }?.count == 1)
        let reparsed = try Scenario.decode(DundeeImporter.encode(scenario), file: "x.json")
        #expect(reparsed == scenario)
    }
}
