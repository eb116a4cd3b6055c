import Foundation
import SlotScheduler

/// Turns Dundee City Council's charging-session CSV into a scenario: each real session becomes
/// a reservation of its connector for its start hour, requested `leadHours` before that hour.
///
/// Contains public sector information licensed under the Open Government Licence v3.0.
public enum DundeeImporter {
    public static let attribution =
        "Contains public sector information licensed under the Open Government Licence v3.0. Source: Dundee City Council charging-session open data (6 June to 6 September 2018), via the Open Data Scotland catalogue."

    /// Splits one CSV line, honouring double quotes.
    static func fields(_ line: Substring) -> [String] {
        var result: [String] = []
        var field = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let c = iterator.next() {
            if quoted {
                if c == "\"" { quoted = false } else { field.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                result.append(field)
                field = ""
            } else {
                field.append(c)
            }
        }
        result.append(field)
        return result
    }

    static func slug(_ site: String) -> String {
        var name = site
        if let comma = name.range(of: ", Dundee", options: .backwards) { name = String(name[..<comma.lowerBound]) }
        var out = ""
        var dash = false
        for c in TextFolding.fold(name) {
            if c.isLetter || c.isNumber {
                out.append(c)
                dash = false
            } else if !dash && !out.isEmpty {
                out.append("-")
                dash = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "site" : out
    }

    static func socketKind(model: String) -> (ConnectorType, Double) {
        let m = model.lowercased()
        if m.contains("rapid") || m.contains("50kw") { return (.ccs, 50) }
        if m.contains("22kw") { return (.type2, 22) }
        if m.contains("7kw") { return (.type2, 7) }
        return (.type2, 7)
    }

    /// Reads the CSV at `path` and builds the scenario.
    public static func makeScenario(csvPath path: String, leadHours: Int = 3) throws(SimulationIOError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw SimulationIOError(path: path, problem: "cannot read the CSV file") }
        var skipped: [String: Int] = [:]
        var notes: [String: Int] = [:]
        var seenEvents = Set<String>()
        struct Session {
            var event: Int
            var user: UInt64
            var site: String
            var socket: String
            var date: LocalDate
            var hour: Int
        }
        var sessions: [Session] = []
        var sites: [String: (name: String, sockets: [String: (ConnectorType, Double)])] = [:]
        var rows = 0
        for (n, line) in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .enumerated()
        {
            if n == 0 { continue }  // header
            rows += 1
            let f = fields(line)
            guard f.count >= 13 else {
                skipped["malformed row (fewer than 13 columns)", default: 0] += 1
                continue
            }
            let event = f[0].trimmingCharacters(in: .whitespaces)
            guard let eventNumber = Int(event) else {
                skipped["no charging event number", default: 0] += 1
                continue
            }
            guard seenEvents.insert(event).inserted else {
                skipped["duplicate charging event number", default: 0] += 1
                continue
            }
            var userText = f[1].trimmingCharacters(in: .whitespaces)
            var letter: UInt64 = 0
            if let last = userText.last, last.isLetter, let ascii = last.uppercased().unicodeScalars.first?.value {
                letter = UInt64(ascii) - 64
                userText.removeLast()
                notes[
                    "user ids with a trailing letter (kept as separate users: id × 100 + letter number)", default: 0] +=
                    1
            }
            guard let userNumber = UInt64(userText), userNumber < 1 << 40 else {
                skipped["user id not a number", default: 0] += 1
                continue
            }
            let user = letter == 0 ? userNumber : userNumber * 100 + letter
            let cp = f[2].trimmingCharacters(in: .whitespaces)
            let connector = f[3].trimmingCharacters(in: .whitespaces)
            let site = f[10].trimmingCharacters(in: .whitespaces)
            guard !cp.isEmpty, !connector.isEmpty, !site.isEmpty else {
                skipped["missing site, charge point or connector", default: 0] += 1
                continue
            }
            let d = f[4].split(separator: "/")
            let t = f[5].split(separator: ":")
            guard d.count == 3, t.count == 2, let day = Int(d[0]), let month = Int(d[1]), let year = Int(d[2]),
                let hour = Int(t[0]), (0...23).contains(hour), let minute = Int(t[1]), (0...59).contains(minute),
                let date = try? LocalDate(year: year, month: month, day: day)
            else {
                skipped["unparseable start date or time", default: 0] += 1
                continue
            }
            if f[7].trimmingCharacters(in: .whitespaces).isEmpty {
                notes["sessions without an end time (kept: only the start hour is booked)", default: 0] += 1
            }
            let socket = "\(cp)-\(connector)"
            var entry = sites[site] ?? (site, [:])
            entry.sockets[socket] = entry.sockets[socket] ?? socketKind(model: f[12])
            sites[site] = entry
            sessions.append(Session(event: eventNumber, user: user, site: site, socket: socket, date: date, hour: hour))
        }
        // Stations, sorted by id; site slugs made unique.
        var idOfSite: [String: String] = [:]
        var usedIDs = Set<String>()
        for site in sites.keys.sorted() {
            var id = slug(site)
            var k = 2
            while usedIDs.contains(id) {
                id = slug(site) + "-\(k)"
                k += 1
            }
            usedIDs.insert(id)
            idOfSite[site] = id
        }
        let stations: [Station] = sites.keys.sorted().compactMap { site in
            guard let info = sites[site], let id = idOfSite[site] else { return nil }
            let sockets = info.sockets.keys.sorted().compactMap { key -> Socket? in
                guard let (connector, power) = info.sockets[key] else { return nil }
                return Socket(id: SocketID(key), connector: connector, powerKW: power)
            }
            return Station(id: StationID(id), name: site, city: "Dundee", timeZone: "Europe/London", sockets: sockets)
        }
        .sorted { $0.id < $1.id }
        guard let catalog = try? Catalog(stations) else {
            throw SimulationIOError(path: path, problem: "the stations built from the CSV are not valid")
        }
        // Steps in request order.
        var timed: [(at: Int64, event: Int, step: Step)] = []
        for s in sessions {
            guard let station = idOfSite[s.site] else { continue }
            let slot = Slot(station: StationID(station), socket: SocketID(s.socket), date: s.date, hour: s.hour)
            guard let ref = try? catalog.resolve(slot), let start = catalog.start(of: ref) else {
                skipped["start at a local time that does not exist", default: 0] += 1
                continue
            }
            let at = start.secondsSinceEpoch - Int64(leadHours) * 3_600
            timed.append(
                (
                    at, s.event,
                    Step(
                        op: .reserve, at: Timestamp(Instant(secondsSinceEpoch: at)), user: s.user,
                        station: StationID(station), socket: SocketID(s.socket), date: s.date, hour: s.hour)
                ))
        }
        timed.sort { ($0.at, $0.event) < ($1.at, $1.event) }
        let first = timed.first?.at ?? 0
        var noteList = notes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        noteList.append(
            "each session is a reservation of its connector for its start hour, requested \(leadHours) hours before; refusals with slotTaken are real sessions that collide with an earlier session's hour on the same connector"
        )
        noteList.append("a session longer than an hour books only its start hour; the end time is not used")
        return Scenario(
            name: "dundee-2018",
            description:
                "Replay of every public charging session recorded by Dundee City Council's charge points, 6 June to 6 September 2018, as advance bookings.",
            attribution: attribution, seed: 2018, stations: stations, policy: ScenarioPolicy(maxUpcomingBookings: 10),
            clock: ScenarioClock(start: Timestamp(Instant(secondsSinceEpoch: first)), stepSeconds: 0),
            users: UserPopulation(count: 1), steps: timed.map(\.step),
            expectations: Expectations(counts: ["steps": CountRange(exactly: timed.count)]),
            provenance: Provenance(
                source: (path as NSString).lastPathComponent, rowsRead: rows, stepsWritten: timed.count,
                skipped: skipped, notes: noteList))
    }

    /// Encodes a scenario as JSON with sorted keys, one scripted step per line (keeps big replays diffable).
    public static func encode(_ scenario: Scenario) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var head = scenario
        head.steps = nil
        guard var text = (try? encoder.encode(head)).flatMap({ String(data: $0, encoding: .utf8) }) else {
            return Data()
        }
        let compact = JSONEncoder()
        compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let steps = (scenario.steps ?? []).compactMap {
            (try? compact.encode($0)).flatMap { String(data: $0, encoding: .utf8) }
        }
        if !steps.isEmpty, let close = text.lastIndex(of: "}") {
            text = String(text[..<close]).trimmingCharacters(in: .whitespacesAndNewlines)
            text += ",\n  \"steps\" : [\n    " + steps.joined(separator: ",\n    ") + "\n  ]\n}"
        }
        return Data((text + "\n").utf8)
    }
}
