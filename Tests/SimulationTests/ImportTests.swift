import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

/// `schedule-sim import` on small CSVs written in the layouts of the public data sets: Palo Alto
/// (one date-time column, m/d/yyyy, a PDT/PST column, a duration), Perth & Kinross (ISO dates, a
/// separate start time, an end, no user column) and Dundee (the preset), across both DST changes.
@Suite struct ImportTests {
    /// Writes `csv` to a temporary file and imports it.
    static func run(_ csv: String, _ layout: SessionLayout) throws(ImportError) -> Scenario {
        try run(bytes: Data(csv.utf8), layout)
    }

    /// Writes `bytes` to a temporary file and imports it.
    static func run(bytes: Data, _ layout: SessionLayout) throws(ImportError) -> Scenario {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("import-\(UUID().uuidString).csv").path
        _ = FileManager.default.createFile(atPath: path, contents: bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try SessionImporter.makeScenario(csvPath: path, layout: layout)
    }

    /// Each step as "station/socket date hour user requested-at".
    static func lines(_ scenario: Scenario) -> [String] {
        (scenario.steps ?? []).map { step in
            let slot = "\(step.station?.rawValue ?? "-")/\(step.socket?.rawValue ?? "-")"
            let when = "\(step.date.map(\.description) ?? "-") \(step.hour ?? -1)"
            return "\(slot) \(when) u\(step.user ?? 0) \(step.at?.description ?? "-")"
        }
    }

    // Palo Alto: 33 columns; the real file's header, rows trimmed to what matters.
    static let paloAltoHeader =
        "Station Name,MAC Address,Org Name,Start Date,Start Time Zone,End Date,End Time Zone,Transaction Date (Pacific Time),Total Duration (hh:mm:ss),Charging Time (hh:mm:ss),Energy (kWh),GHG Savings (kg),Gasoline Savings (gallons),Port Type,Port Number,Plug Type,EVSE ID,Address 1,City,State/Province,Postal Code,Country,Latitude,Longitude,Currency,Fee,Ended By,Plug In Event Id,Driver Postal Code,User ID,County,System S/N,Model Number"

    static func paloAltoRow(station: String, start: String, zone: String, duration: String, port: String, user: String)
        -> String
    {
        var fields = Array(repeating: "", count: 33)
        fields[0] = station
        fields[3] = start
        fields[4] = zone
        fields[8] = duration
        fields[14] = port
        fields[29] = user
        return fields.joined(separator: ",")
    }

    static var paloAlto: SessionLayout {
        var layout = SessionLayout(
            start: "Start Date", station: "Station Name", socket: ["Port Number"], timeZone: "America/Los_Angeles")
        layout.user = "User ID"
        layout.zoneLabel = "Start Time Zone"
        layout.duration = "Total Duration (hh:mm:ss)"
        return layout
    }

    /// Lead hours outside 0...720 are refused by the library, not only by the command line (a
    /// huge one overflowed the request time and trapped).
    @Test(arguments: [Int.min, -1, 721, Int.max])
    func leadHoursOutOfRangeAreRefused(hours: Int) throws {
        var layout = Self.paloAlto
        layout.leadHours = hours
        let row = Self.paloAltoRow(
            station: "PALO ALTO CA / BRYANT #1", start: "7/29/2011 20:17", zone: "PDT", duration: "1:30:00",
            port: "1", user: "3284")
        let error = try #require(throws: ImportError.self) { try Self.run(Self.paloAltoHeader + "\n" + row, layout) }
        #expect(error.kind == .data && error.problem.contains("lead hours \(hours)"), "\(error)")
    }

    @Test func paloAltoAcrossBothDSTChanges() throws {
        let rows = [
            // 20:17 PDT = 03:17Z; 1 h 30 min → hours 20 and 21, requested 3 h before 20:00 PDT.
            Self.paloAltoRow(
                station: "\"PALO ALTO CA / HAMILTON #1\"", start: "7/29/2011 20:17", zone: "PDT", duration: "1:30:00",
                port: "1", user: "3284"),
            // Autumn: 01:30 PDT is the repeated hour's first occurrence, the slot's own.
            Self.paloAltoRow(
                station: "PALO ALTO CA / BRYANT #1", start: "11/6/2011 1:30", zone: "PDT", duration: "0:20:00",
                port: "2",
                user: "77"),
            // Autumn: 01:40 PST is the second occurrence, which has no slot: skipped.
            Self.paloAltoRow(
                station: "PALO ALTO CA / BRYANT #1", start: "11/6/2011 1:40", zone: "PST", duration: "0:20:00",
                port: "1",
                user: "78"),
            // Spring: 02:30 does not exist on 2012-03-11.
            Self.paloAltoRow(
                station: "PALO ALTO CA / BRYANT #1", start: "3/11/2012 2:30", zone: "PST", duration: "1:00:00",
                port: "1",
                user: "79"),
            // Spring: 01:50 PST for 40 min ends at 03:30 PDT: hours 1 and 3 (2 does not exist).
            Self.paloAltoRow(
                station: "PALO ALTO CA / BRYANT #1", start: "3/11/2012 1:50", zone: "PST", duration: "0:40:00",
                port: "1",
                user: ""),
            // PST in July is not Los Angeles' offset then.
            Self.paloAltoRow(
                station: "PALO ALTO CA / BRYANT #1", start: "7/30/2011 9:00", zone: "PST", duration: "1:00:00",
                port: "1",
                user: "80"),
        ]
        let scenario = try Self.run(([Self.paloAltoHeader] + rows).joined(separator: "\r\n") + "\r\n", Self.paloAlto)
        let p = try #require(scenario.provenance)
        #expect(p.rowsRead == 6)
        #expect(
            p.skipped == [
                "start at a local time that does not exist": 1,
                "start in the second occurrence of the repeated autumn hour (a slot names the first)": 1,
                "zone label does not match the time zone at that time": 1,
            ])
        #expect(
            Self.lines(scenario) == [
                "palo-alto-ca-hamilton-1/1 2011-07-29 20 u3284 2011-07-30T00:00:00Z",
                "palo-alto-ca-hamilton-1/1 2011-07-29 21 u3284 2011-07-30T00:00:00Z",
                "palo-alto-ca-bryant-1/2 2011-11-06 1 u77 2011-11-06T05:00:00Z",
                "palo-alto-ca-bryant-1/1 2012-03-11 1 u2199023255558 2012-03-11T06:00:00Z",
                "palo-alto-ca-bryant-1/1 2012-03-11 3 u2199023255558 2012-03-11T06:00:00Z",
            ])
        #expect(p.stepsWritten == 5)
        #expect(p.notes.contains { $0.hasPrefix("1 rows without a user id") })
        #expect(scenario.stations.map(\.name) == ["PALO ALTO CA / BRYANT #1", "PALO ALTO CA / HAMILTON #1"])
        _ = try scenario.prepare(file: "palo-alto.json")
    }

    // Perth & Kinross: 10 columns, ISO dates, separate start and end times, no user column.
    static let perthHeader = "CP ID,Connector,Site,Start Date,Start Time,End Date,End Time,Total kWh,Cost,Model"

    static var perth: SessionLayout {
        var layout = SessionLayout(
            start: "Start Date", station: "Site", socket: ["CP ID", "Connector"], timeZone: "Europe/London")
        layout.startTime = "Start Time"
        layout.end = "End Date"
        layout.endTime = "End Time"
        layout.model = "Model"
        layout.leadHours = 1
        return layout
    }

    @Test func perthAndKinrossAcrossBothDSTChanges() throws {
        let csv = """
            \(Self.perthHeader)
            51521,1,Broxden Park & Ride,2017-03-26,00:30,2017-03-26,03:10,9.1,0,APT Rapid Charger
            51521,2,Broxden Park & Ride,2017-03-26,01:15,2017-03-26,02:10,3.0,0,APT Rapid Charger
            50338,1,"Atholl Street, Perth",2017-10-29,01:20,2017-10-29,01:50,2.0,0,APT 22kW Dual Outlet
            50338,1,"Atholl Street, Perth",2017-10-29,04:00,2017-10-29,03:00,2.0,0,APT 22kW Dual Outlet
            50338,2,"Atholl Street, Perth",yesterday,04:00,2017-10-29,05:00,2.0,0,APT 22kW Dual Outlet
            50338,2,"Atholl Street, Perth"

            """
        let scenario = try Self.run(csv, Self.perth)
        let p = try #require(scenario.provenance)
        #expect(p.rowsRead == 6)
        #expect(
            p.skipped == [
                "end not after start": 1, "malformed row (fewer columns than the header needs)": 1,
                "start at a local time that does not exist": 1, "unparseable start date or time": 1,
            ])
        // 00:30 GMT to 03:10 BST books hours 0, 2 and 3: hour 1 does not exist that day. Each row
        // is a user of its own (no user column), numbered from 2^41 by line.
        #expect(
            Self.lines(scenario) == [
                "broxden-park-ride/51521-1 2017-03-26 0 u2199023255554 2017-03-25T23:00:00Z",
                "broxden-park-ride/51521-1 2017-03-26 2 u2199023255554 2017-03-25T23:00:00Z",
                "broxden-park-ride/51521-1 2017-03-26 3 u2199023255554 2017-03-25T23:00:00Z",
                "atholl-street-perth/50338-1 2017-10-29 1 u2199023255556 2017-10-28T23:00:00Z",
            ])
        #expect(p.notes.contains { $0.hasPrefix("1 starts in the repeated autumn hour taken as its first occurrence") })
        #expect(scenario.stations.first { $0.name == "Broxden Park & Ride" }?.sockets.first?.powerKW == 50)
        _ = try scenario.prepare(file: "perth.json")
    }

    @Test func dundeePreset() throws {
        let csv = """
            Charging event,User ID,CP ID,Connector,Start Date,Start Time,End Date,End Time,Total kWh,Cost,Site,Group,Model,,,
            7751157,601838,50914,1,06/09/2018,23:55,07/09/2018,07:03,22.287,0,"Lochee Charging Hub, Dundee",G,APT 22kW Dual Outlet,,,x
            7751142,604982A,50349,2,06/09/2018,23:38,06/09/2018,23:48,7.08,0,"Greenmarket Multi Car Park, Dundee",G,APT Dual Rapid Charger,,,x
            7751142,604982,50349,2,06/09/2018,23:38,06/09/2018,23:48,7.08,0,"Greenmarket Multi Car Park, Dundee",G,APT Dual Rapid Charger,,,x
            7751100,,50349,1,13/09/2018,10:00,,,0,0,"Greenmarket Multi Car Park, Dundee",G,APT Dual Rapid Charger,,,x
            """
        let scenario = try Self.run(csv, .dundee)
        let p = try #require(scenario.provenance)
        #expect(p.skipped == ["duplicate session id": 1])
        #expect(
            Self.lines(scenario) == [
                "greenmarket-multi-car-park/50349-2 2018-09-06 23 u1099511627776 2018-09-06T19:00:00Z",
                "lochee-charging-hub/50914-1 2018-09-06 23 u601838 2018-09-06T19:00:00Z",
                "greenmarket-multi-car-park/50349-1 2018-09-13 10 u2199023255557 2018-09-13T06:00:00Z",
            ])
        #expect(scenario.name == "dundee-2018")
        #expect(scenario.stations.allSatisfy { $0.city == "Dundee" && $0.timeZone == "Europe/London" })
    }

    /// A time written with its offset names that instant (it was read as the station's wall
    /// clock, an hour early in summer, and `+01:00` was refused); a zone label must agree with it;
    /// `IST` in Kolkata is India's, not Ireland's; "12345A" and 1234501 are two users.
    @Test func writtenOffsetsAmbiguousLabelsAndLetterUsers() throws {
        let header = "CP ID,Connector,Site,Start,User,Zone"
        var layout = SessionLayout(
            start: "Start", station: "Site", socket: ["CP ID", "Connector"], timeZone: "Europe/London")
        layout.user = "User"
        layout.zoneLabel = "Zone"
        layout.leadHours = 0
        let scenario = try Self.run(
            """
            \(header)
            1,1,A,2018-06-06T08:05:00Z,605082H,
            1,2,A,2018-06-06T08:05:00+01:00,60508208,
            1,3,A,2018-06-06T08:35:00+05:30,605082h,BST
            1,4,A,2018-06-06 09:05:00,605082H,BST

            """, layout)
        #expect(scenario.provenance?.skipped == ["zone label does not match the offset the time was written with": 1])
        let text = 1 << 40
        #expect(
            Self.lines(scenario) == [
                "a/1-2 2018-06-06 8 u60508208 2018-06-06T07:00:00Z",
                "a/1-1 2018-06-06 9 u\(text) 2018-06-06T08:00:00Z",
                "a/1-4 2018-06-06 9 u\(text) 2018-06-06T08:00:00Z",
            ])
        var india = SessionLayout(
            start: "Start", station: "Site", socket: ["CP ID", "Connector"], timeZone: "Asia/Kolkata")
        india.zoneLabel = "Zone"
        let kolkata = try Self.run("\(header)\n1,1,A,2018-06-06 09:05,,IST\n", india)
        #expect(Self.lines(kolkata).map { $0.split(separator: " ")[1...2].joined(separator: " ") } == ["2018-06-06 9"])
    }

    /// A start written with its offset in the repeated autumn hour's second occurrence is skipped
    /// as a labelled one is (it was booked into the first, an hour before it began); an end in that
    /// hour is the first of its instants after the start (a 30-minute session was dropped as
    /// ending before it started).
    @Test func theRepeatedAutumnHourWithOffsetsAndEnds() throws {
        var layout = SessionLayout(start: "Start", station: "Site", socket: ["Port"], timeZone: "Europe/London")
        layout.leadHours = 0
        let offsets = try Self.run(
            "Port,Site,Start\n1,A,2018-10-28T01:10:00+01:00\n1,A,2018-10-28T01:10:00+00:00\n", layout)
        #expect(Self.lines(offsets) == ["a/1 2018-10-28 1 u2199023255554 2018-10-28T00:00:00Z"])
        #expect(
            offsets.provenance?.skipped == [
                "start in the second occurrence of the repeated autumn hour (a slot names the first)": 1
            ])
        layout.end = "End"
        let ends = try Self.run("Port,Site,Start,End\n1,A,2018-10-28 01:40,2018-10-28 01:10\n", layout)
        #expect(Self.lines(ends) == ["a/1 2018-10-28 1 u2199023255554 2018-10-28T00:00:00Z"])
    }

    /// Canonically equivalent names (é as one scalar, or e and a combining accent) are one socket;
    /// a long name's slug is cut to an id; a socket that cannot be an id skips its row, counted.
    @Test func namesAreReadAsTheirCanonicalText() throws {
        var layout = SessionLayout(start: "Start", station: "Site", socket: ["Port"], timeZone: "Europe/Paris")
        layout.leadHours = 0
        let long = String(repeating: "parking souterrain ", count: 10)
        let scenario = try Self.run(
            """
            Port,Site,Start
            B\u{E2}timent-\u{C9},A,2018-06-06 08:00
            Ba\u{302}timent-E\u{301},A,2018-06-06 10:00
            1,\(long),2018-06-06 12:00
            "line
            break",A,2018-06-06 14:00

            """, layout)
        #expect(scenario.stations.map { $0.sockets.map(\.id.rawValue) } == [["B\u{E2}timent-\u{C9}"], ["1"]])
        #expect(scenario.stations.allSatisfy { $0.id.rawValue.utf8.count <= SessionImporter.maxSlugBytes })
        #expect(scenario.steps?.count == 3)
        #expect(
            scenario.provenance?.skipped == [
                "a socket that cannot be an id (a control character, or more than 128 bytes)": 1
            ])
    }

    /// What a refused file gets told: dates in a form no order reads are named with their line
    /// (not sent to `--date-order`, which cannot help); no rows; each skip's first line; and a
    /// signed user id is text, not the user its digits name.
    @Test func refusalsNameTheLineAndTheValue() throws {
        var layout = SessionLayout(start: "Start", station: "Site", socket: ["Port"], timeZone: "Europe/London")
        layout.user = "User"
        let rfc = #expect(throws: ImportError.self) {
            try Self.run("Start,Site,Port,User\n\"Wed, 25 Apr 2018 11:08:04 GMT\",A,1,7\n", layout)
        }
        #expect(
            rfc?.problem.hasPrefix(
                #"the values of column "Start" are not dates this importer reads (line 2: "Wed, 25 Apr"#) == true,
            "\(String(describing: rfc))")
        let empty = #expect(throws: ImportError.self) { try Self.run("Start,Site,Port,User\r\n", layout) }
        #expect(empty?.problem == "no data rows below the header")
        layout.dateOrder = .dmy
        let iso = #expect(throws: ImportError.self) {
            try Self.run("Start,Site,Port,User\n2018-09-07 00:05,A,1,7\n", layout)
        }
        #expect(iso?.problem.hasSuffix("dates are read as dmy (--date-order)") == true, "\(String(describing: iso))")
        #expect(
            iso?.counts.lines.last
                == #"  skipped 1: unparseable start date or time (first: line 2, "2018-09-07 00:05")"#)
        layout.dateOrder = nil
        let users = try Self.run("Start,Site,Port,User\n2018-06-06 08:00,A,1,7\n2018-06-06 09:00,A,1,+7\n", layout)
        #expect(Set((users.steps ?? []).compactMap(\.user)).count == 2)
    }

    @Test func missingColumnNamesItAndShowsTheHeader() {
        var layout = Self.perth
        layout.start = "Start"
        let error = #expect(throws: ImportError.self) {
            try Self.run(Self.perthHeader + "\n1,1,Site,2017-01-01,10:00,2017-01-01,11:00,0,0,m\n", layout)
        }
        #expect(error?.kind == .data)
        #expect(
            error?.problem.hasPrefix("no column \"Start\" (--start); the header has 10 columns: \"CP ID\", ") == true)
        #expect(error?.problem.contains("\"Start Date\", \"Start Time\"") == true)
        #expect(error?.counts.rowsRead == 1)
    }

    @Test func everyRowSkippedFailsWithTheCounts() {
        let csv =
            Self.perthHeader + "\n1,1,Site,2017-13-40,10:00,2017-01-01,11:00,0,0,m\n1,1,,2017-01-01,10:00,,,0,0,m\n"
        let error = #expect(throws: ImportError.self) { try Self.run(csv, Self.perth) }
        #expect(error?.problem == "no row became a session (see the skip counts)")
        #expect(error?.counts.rowsRead == 2)
        #expect(error?.counts.skipped == ["missing station or socket": 1, "unparseable start date or time": 1])
    }

    @Test func ambiguousDatesAskForTheOrder() throws {
        var layout = Self.perth
        layout.start = "Start Date"
        let csv = Self.perthHeader + "\n1,1,Site,03/04/2017,10:00,03/04/2017,11:00,0,0,m\n"
        let error = #expect(throws: ImportError.self) { try Self.run(csv, layout) }
        #expect(error?.problem.contains("pass --date-order ymd, dmy or mdy") == true)
        layout.dateOrder = .mdy
        #expect(try Self.lines(Self.run(csv, layout)) == ["site/1-1 2017-03-04 10 u2199023255554 2017-03-04T09:00:00Z"])
        layout.dateOrder = .dmy
        #expect(try Self.lines(Self.run(csv, layout)) == ["site/1-1 2017-04-03 10 u2199023255554 2017-04-03T08:00:00Z"])
    }

    /// A CSV that is not UTF-8 is refused where it stops being UTF-8. Read as UTF-8 anyway, a
    /// Latin-1 `é` became a replacement character (two such names one station) and a UTF-16
    /// file's header a list of NULs, named as a missing column.
    @Test func csvThatIsNotUTF8IsRefusedWithItsLine() throws {
        let csv = Self.perthHeader + "\n1,1,Caf\u{E9},2017-01-01,10:00,2017-01-01,11:00,0,0,m\n"
        _ = try Self.run(csv, Self.perth)
        let latin1 = #expect(throws: ImportError.self) {
            try Self.run(bytes: try #require(csv.data(using: .isoLatin1)), Self.perth)
        }
        #expect(latin1?.problem.hasPrefix("byte 0xE9 on line 2 ") == true)
        for encoding: String.Encoding in [.utf16, .utf16LittleEndian, .utf32BigEndian] {
            let wide = #expect(throws: ImportError.self) {
                try Self.run(bytes: try #require(csv.data(using: encoding)), Self.perth)
            }
            #expect(wide?.kind == .data)
            #expect(wide?.problem.contains("save the CSV as UTF-8") == true, "\(encoding)")
        }
    }

    @Test func csvQuotingLineEndsAndByteOrderMark() {
        let text = "\u{FEFF}a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\r\n\r\nlast,row"
        let table = CSVTable(bytes: Array(text.utf8))
        #expect(table.header == ["a", "b"])
        #expect(table.rows.map(\.fields) == [["x, \"y\"", "two\nlines"], ["last", "row"]])
        #expect(table.rows.map(\.line) == [2, 5])
        #expect(CSVTable(bytes: Array("a\n\"open".utf8)).unterminatedQuoteLine == 2)
    }

    @Test func zoneLabelsAndTimes() {
        #expect(ZoneLabel.offset("PDT") == -25_200)
        #expect(ZoneLabel.offset(" bst ") == 3_600)
        #expect(ZoneLabel.offset("+05:30") == 19_800)
        #expect(ZoneLabel.offset("UTC-7") == -25_200)
        #expect(ZoneLabel.offset("XYZ") == nil)
        #expect(SessionTime.time("8:05 PM")?.hour == 20)
        #expect(SessionTime.time("12:05 AM")?.hour == 0)
        #expect(SessionTime.time("24:00") == nil)
        #expect(SessionTime.time("08:05:00Z").map { [$0.hour, $0.minute, Int($0.offset ?? -1)] } == [8, 5, 0])
        #expect(SessionTime.time("08:05:00.000+05:30")?.offset == 19_800)
        #expect(SessionTime.time("8:05 -0700")?.offset == -25_200)
        #expect(SessionTime.time("08:05")?.offset == nil)
        for bad in ["08:05:99", "08:05:0x", "08:+5", "+8:05", "08:05+99:00", "08:05:00.5.5"] {
            #expect(SessionTime.time(Substring(bad)) == nil, "\(bad)")
        }
        #expect(ZoneLabel.offsets("ist") == [3_600, 19_800, 7_200])
        #expect(SessionTime.duration("1:30:00") == 5_400)
        #expect(SessionTime.duration("90") == 5_400)
        #expect(SessionTime.duration("1:75") == nil)
        #expect(SessionTime.duration("7.5") == 450)
        // Swift's Double reads hexadecimal, exponents and signs; a duration in minutes is digits.
        for bad in ["0x10", "1e2", "+5", "-0", "inf", "nan", "1:+5", "+1:05"] {
            #expect(SessionTime.duration(bad) == nil, "\(bad)")
        }
    }

    /// A date is three numbers of ASCII digits between one kind of separator: a doubled one,
    /// a sign or two kinds are no date (`-1/-1/-2018` was 2018-01-01).
    @Test func datesAreDigitsBetweenOneSeparator() {
        #expect(SessionTime.date("2018-06-06", order: .ymd) == (try? LocalDate(parsing: "2018-06-06")))
        #expect(SessionTime.date("6/7/2018", order: .dmy) == (try? LocalDate(parsing: "2018-07-06")))
        #expect(SessionTime.date("06.07.2018", order: .mdy) == (try? LocalDate(parsing: "2018-06-07")))
        for bad in ["2018--06--06", "-1/-1/-2018", "2018-06/06", "+1/1/2018", "2018-06-", "1//2018"] {
            #expect(SessionTime.date(Substring(bad), order: .ymd) == nil, "\(bad)")
            #expect(SessionTime.date(Substring(bad), order: .dmy) == nil, "\(bad)")
        }
    }

    /// A session early on 1900-01-01 would be requested in 1899, which no scenario holds: it is
    /// skipped, so the import writes a scenario that runs (its clock started in 1899).
    @Test func aSessionRequestedBefore1900IsSkipped() throws {
        let csv =
            Self.perthHeader
            + "\n1,1,Site,1900-01-01,00:30,1900-01-01,01:00,0,0,m\n1,1,Site,1900-01-02,10:00,1900-01-02,11:00,0,0,m\n"
        let scenario = try Self.run(csv, Self.perth)
        #expect(Self.lines(scenario).count == 1)
        #expect(scenario.clock.start.description == "1900-01-02T09:00:00Z")
        // It runs: before, `run` refused its clock, which began in 1899.
        let prepared = try Scenario.decode(Fixtures.encode(scenario), file: "imported.json").prepare(
            file: "imported.json")
        #expect(prepared.scenario.clock.start == scenario.clock.start)
    }

    /// A header naming the chosen column twice is refused: the first was taken, silently.
    @Test func aColumnNamedTwiceIsRefused() {
        let header = Self.perthHeader + ",Start Date"
        let error = #expect(throws: ImportError.self) {
            try Self.run(header + "\n1,1,Site,2017-01-01,10:00,2017-01-01,11:00,0,0,m,2017-01-02\n", Self.perth)
        }
        #expect(error?.kind == .data)
        #expect(
            error?.problem.hasPrefix("2 columns are named \"Start Date\" (--start): columns 4, 11") == true,
            "\(String(describing: error))")
    }
}
