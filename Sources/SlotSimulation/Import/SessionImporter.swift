import Foundation
import SlotScheduler

/// Turns any charging-session CSV into a replay scenario, with the columns a ``SessionLayout``
/// names by header: each session becomes a reservation of its socket for its start hour (or,
/// with an end or duration, every hour it overlaps, at most 24), requested
/// ``SessionLayout/leadHours`` before that hour, by its user.
///
/// Rules, each counted in ``ImportCounts``:
/// - A row is skipped, with its reason, when it is too short, has no station or socket, a start
///   that does not parse, starts in the spring gap, or is labelled as the second occurrence of
///   the repeated autumn hour (a slot names the first occurrence; the second has no slot).
/// - Without a zone label column, a start in the repeated hour is taken as its first occurrence.
/// - A time written with its offset (`2018-06-06T08:05:00Z`, `08:05+01:00`) names that instant,
///   booked at the station's local hour then; a zone label on the row must agree with it. A label
///   with several meanings (`IST`, `CST`, `BST`) matches when the zone has any of them.
/// - User ids that are numbers below 2^40 are kept; other texts (Dundee's "12345A" too) are
///   numbered from 2^40 in order of first appearance, so two different texts are never one user. A row without a user id (or a layout without a user column) is booked as
///   a user of its own, numbered from 2^41 by row, so it never competes for another's limit.
public enum SessionImporter {
    /// The largest CSV read (the scenario itself is limited to ``ScenarioLimits/maxFileBytes``).
    public static let maxCSVBytes = 1 << 30
    /// The most hours one session books.
    public static let maxSessionHours = 24

    /// Reads the CSV at `path` and builds the scenario.
    /// - Complexity: O(r log r) for r rows.
    public static func makeScenario(csvPath path: String, layout: SessionLayout) throws(ImportError) -> Scenario {
        let file = (path as NSString).lastPathComponent
        let table = try readTable(path)
        var counts = ImportCounts()
        counts.rowsRead = table.rows.count
        func fail(_ problem: String) -> ImportError {
            ImportError(kind: .data, file: path, problem: problem, counts: counts)
        }
        guard SessionLayout.leadHoursRange.contains(layout.leadHours) else {
            throw fail("lead hours \(layout.leadHours) is not \(SessionLayout.leadHoursRange)")
        }
        if let line = table.unterminatedQuoteLine { throw fail("a quote opened on line \(line) is never closed") }
        let columns: Columns
        do { columns = try Columns(table, layout: layout, path: path) } catch {
            var error = error
            error.counts = counts
            throw error
        }
        guard let zone = TimeZone(identifier: layout.timeZone) else {
            throw fail("unknown time zone \(layout.timeZone.debugDescription) (--time-zone); use an IANA name")
        }
        let order = try dateOrder(table, columns, layout) { fail($0) }
        var reader = RowReader(
            columns: columns, order: order, zone: ZoneReader(zone: zone), layout: layout, counts: counts)
        let sessions = table.rows.compactMap { reader.session($0) }
        counts = reader.counts
        let stations = Self.stations(sessions, layout: layout)
        guard !sessions.isEmpty else {
            // A preset's date order that the file does not follow reads no date at all.
            let unreadDates = counts.skipped["unparseable start date or time"] == counts.rowsRead
            let hint = layout.dateOrder.map { unreadDates ? "; dates are read as \($0) (--date-order)" : "" } ?? ""
            throw fail("no row became a session (see the skip counts)\(hint)")
        }
        let catalog: Catalog
        do { catalog = try Catalog(stations.list) } catch {
            // Which station and what is wrong with it (a name too long, too many sockets).
            throw fail("the stations read do not make a catalog: \(error)")
        }
        let steps = Self.steps(sessions, stations: stations.idOfName, catalog: catalog, layout: layout, counts: &counts)
        guard steps.count <= ScenarioLimits.maxSteps else {
            throw fail("\(steps.count) booking requests, more than a scenario holds (\(ScenarioLimits.maxSteps))")
        }
        counts.stepsWritten = steps.count
        return scenario(steps, stations: stations.list, layout: layout, file: file, counts: counts)
    }

    static func readTable(_ path: String) throws(ImportError) -> CSVTable {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= maxCSVBytes else {
            throw ImportError(
                kind: .data, file: path, problem: "\(size) bytes, more than \(maxCSVBytes)", counts: ImportCounts())
        }
        let data: Data
        do { data = try InputFile.contents(path, maxBytes: maxCSVBytes) } catch {
            throw ImportError(kind: .unreadable, file: path, problem: error.problem, counts: ImportCounts())
        }
        if let notUTF8 = NotUTF8(data) {
            throw ImportError(
                kind: .data, file: path, problem: "\(notUTF8); save the CSV as UTF-8", counts: ImportCounts())
        }
        return CSVTable(bytes: [UInt8](data))
    }

    /// The layout's date order, else the one the start (and end) values show.
    static func dateOrder(
        _ table: CSVTable, _ columns: Columns, _ layout: SessionLayout, fail: (String) -> ImportError
    ) throws(ImportError) -> SessionLayout.DateOrder {
        if let order = layout.dateOrder { return order }
        let dateColumns = [columns.start] + (columns.end.map { [$0] } ?? [])
        let dates = table.rows.flatMap { row in
            dateColumns.compactMap { $0 < row.fields.count ? SessionTime.split(row.fields[$0]).date : nil }
        }
        if let order = SessionTime.inferOrder(dates) { return order }
        guard let row = table.rows.first else { throw fail("no data rows below the header") }
        if !dates.contains(where: { SessionTime.numbers($0) != nil }) {
            // No order helps: say what a date must look like, with a value that is not one.
            let value = columns.start < row.fields.count ? row.fields[columns.start] : ""
            throw fail(
                "the values of column \(layout.start.debugDescription) are not dates this importer reads "
                    + "(line \(row.line): \(value.debugDescription)); it reads a date as three numbers between "
                    + "one kind of separator (2018-06-06, 6/6/2018, 06.06.2018), then an optional time")
        }
        let examples = dates.prefix(3).map { String($0).debugDescription }.joined(separator: ", ")
        throw fail(
            "cannot tell the date order of column \(layout.start.debugDescription) from its values (\(examples)); pass --date-order ymd, dmy or mdy"
        )
    }

    /// Stations sorted by id, ids the slugs of their names made unique.
    static func stations(_ sessions: [Session], layout: SessionLayout) -> (list: [Station], idOfName: [String: String])
    {
        var sockets: [String: [String: (ConnectorType, Double)]] = [:]
        for s in sessions { sockets[s.station, default: [:]][s.socket] = sockets[s.station]?[s.socket] ?? s.kind }
        var idOfName: [String: String] = [:]
        var used = Set<String>()
        for name in sockets.keys.sorted() {
            let base = slug(name, dropping: layout.stationSuffix)
            var id = base
            var k = 2
            while !used.insert(id).inserted {
                id = "\(base)-\(k)"
                k += 1
            }
            idOfName[name] = id
        }
        let list = sockets.keys.sorted().compactMap { name -> Station? in
            guard let id = idOfName[name], let kinds = sockets[name] else { return nil }
            let socketList = kinds.keys.sorted().compactMap { key in
                kinds[key].map { Socket(id: SocketID(key), connector: $0.0, powerKW: $0.1) }
            }
            return Station(
                id: StationID(id), name: name, city: layout.city, timeZone: layout.timeZone, sockets: socketList)
        }
        return (list.sorted { $0.id < $1.id }, idOfName)
    }

    /// One reserve step per session hour, in request order (ties by session id, then row).
    static func steps(
        _ sessions: [Session], stations: [String: String], catalog: Catalog, layout: SessionLayout,
        counts: inout ImportCounts
    ) -> [Step] {
        var timed: [(at: Int64, event: Int, line: Int, hour: Int, step: Step)] = []
        for s in sessions {
            guard let station = stations[s.station] else { continue }
            let first = Slot(
                station: StationID(station), socket: SocketID(s.socket), date: s.slots[0].date, hour: s.slots[0].hour)
            guard let ref = try? catalog.resolve(first), let start = catalog.start(of: ref) else {
                counts.skip("start at a local time that does not exist")
                continue
            }
            let at = start.secondsSinceEpoch - Int64(layout.leadHours) * 3_600
            // A session early on 1900-01-01 would be requested in 1899, before any date a scenario holds.
            guard at >= Int64(LocalDate.supportedRange.lowerBound.dayNumber) * 86_400 else {
                counts.skip("requested before 1900-01-01 (the dates this package books start there)")
                continue
            }
            for (k, slot) in s.slots.enumerated() {
                let step = Step(
                    op: .reserve, at: Timestamp(Instant(secondsSinceEpoch: at)), user: s.user,
                    station: StationID(station), socket: SocketID(s.socket), date: slot.date, hour: slot.hour)
                timed.append((at, s.event, s.line, k, step))
            }
        }
        timed.sort { ($0.at, $0.event, $0.line, $0.hour) < ($1.at, $1.event, $1.line, $1.hour) }
        return timed.map(\.step)
    }

    static func scenario(
        _ steps: [Step], stations: [Station], layout: SessionLayout, file: String, counts: ImportCounts
    ) -> Scenario {
        let first = steps.first?.at ?? Timestamp(Instant(secondsSinceEpoch: 0))
        let booked = layout.end != nil || layout.duration != nil ? "every hour it overlaps" : "its start hour"
        var notes = counts.notes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        notes.append(
            "each session is a reservation of its socket for \(booked), requested \(layout.leadHours) hours before; refusals with slotTaken are real sessions that collide with an earlier session's hour on the same socket"
        )
        let name = layout.name ?? slug((file as NSString).deletingPathExtension, dropping: nil)
        return Scenario(
            name: name,
            description: layout.description ?? "Replay of the charging sessions in \(file) as advance bookings.",
            attribution: layout.attribution, seed: layout.seed, stations: stations,
            policy: ScenarioPolicy(maxUpcomingBookings: layout.maxUpcomingBookings),
            clock: ScenarioClock(start: first, stepSeconds: 0), users: UserPopulation(count: 1), steps: steps,
            expectations: Expectations(counts: ["steps": CountRange(exactly: steps.count)]),
            provenance: Provenance(
                source: file, rowsRead: counts.rowsRead, stepsWritten: steps.count, skipped: counts.skipped,
                notes: notes))
    }

    /// A station id from a name: folded to lower-case letters and digits, other runs become "-".
    static func slug(_ name: String, dropping suffix: String?) -> String {
        var name = name
        if let suffix, let range = name.range(of: suffix, options: .backwards) {
            name = String(name[..<range.lowerBound])
        }
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
        // An id is at most 128 UTF-8 bytes (``IdentifierRule``): a long name's slug is cut,
        // leaving room for the suffix that makes it unique.
        while out.utf8.count > maxSlugBytes { out.removeLast() }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "site" : out
    }

    /// The longest slug, in UTF-8 bytes.
    static let maxSlugBytes = 96

    /// A socket's connector and power from its charger's model text.
    static func socketKind(model: String?) -> (ConnectorType, Double) {
        let m = model?.lowercased() ?? ""
        if m.contains("rapid") || m.contains("50kw") { return (.ccs, 50) }
        if m.contains("22kw") { return (.type2, 22) }
        return (.type2, 7)
    }
}
