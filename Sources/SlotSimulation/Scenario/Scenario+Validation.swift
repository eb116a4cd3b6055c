import Foundation
import SlotScheduler

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A scenario checked and compiled for running: rules built, every slot it can touch interned.
///
/// The *domain* is every (socket, date, hour) of every date the scenario mentions; each is a
/// dense cell number, so the simulator and its reference model work on flat arrays.
public struct PreparedScenario: Sendable {
    public let scenario: Scenario
    public let file: String
    public let rules: Rules
    /// First date of the domain (day number) and number of dates.
    let firstDay: Int32
    let days: Int
    let socketCount: Int
    /// Per cell: interned slot and start instant (`Int64.min` for a nonexistent local time).
    let refs: [SlotRef]
    let starts: [Int64]
    /// Cells the workload aims at, and the hot ones among them.
    let candidates: [Int32]
    let hot: [Int32]
    let steps: [CompiledStep]
    let timeline: [CompiledChange]
    /// The cells a charger fault (``Scenario/stationEvents``) leaves closed at the end of the
    /// run, ascending: no booking may be active on one (I20).
    let faultedCells: [Int32]
    /// Instant of the first workload operation.
    let workloadStart: Int64
    let firstUser: UInt64
    let userCount: Int

    struct CompiledStep: Sendable {
        var step: Step
        var now: Int64
        var cell: Int32
        var user: UInt64
        /// For a cancel, the index of the reserve step whose booking it cancels.
        var target: Int
        var change: AvailabilityChange?
    }

    struct CompiledChange: Sendable {
        var atOperation: Int
        var change: AvailabilityChange
        var rule: DisplacementRule
    }

    /// How the cells number the slots.
    var grid: CellGrid { CellGrid(days: Int32(days), firstDay: firstDay) }
    @inline(__always)
    func cell(socket: Int32, day: Int32, hour: Int32) -> Int32 {
        grid.cell(socket: socket, dayOffset: day &- firstDay, hour: hour)
    }
    @inline(__always)
    func socketDay(ofCell cell: Int32) -> Int32 { grid.socketDay(ofCell: cell) }
    public var cellCount: Int { refs.count }

    /// Where the scenario does more than run its workload's reservations, cancels and queries,
    /// as (JSON path, what is there); `nil` for a workload-only scenario. Several processes can
    /// share only such a scenario: their histories on disk do not carry availability changes.
    public var notWorkloadOnly: (path: String, value: String)? {
        if !(scenario.steps ?? []).isEmpty { return ("steps", "scripted steps") }
        if !(scenario.overrides ?? []).isEmpty { return ("overrides", "availability overrides") }
        if !(scenario.timeline ?? []).isEmpty { return ("timeline", "timed availability changes") }
        if !(scenario.stationEvents ?? []).isEmpty { return ("stationEvents", "charger faults") }
        if let availability = scenario.workload?.mix.availability, availability > 0 {
            return ("workload.mix.availability", String(availability))
        }
        return nil
    }
    func slot(ofCell cell: Int32) -> Slot { rules.catalog.slot(refs[Int(cell)]) }
    /// The access code of a cell's socket, if it has one (`Socket.accessCode`).
    func accessCode(ofCell cell: Int32) -> String? { rules.catalog.socket(refs[Int(cell)])?.accessCode }
    public var operations: Int { scenario.workload?.operations ?? 0 }

    /// The slots the workload aims at, in cell order, and the hot ones among them (where the
    /// workload concentrates its reservations): what a run against a live API books.
    public var workloadSlots: (all: [Slot], hot: [Slot]) {
        (candidates.map(slot(ofCell:)), hot.map(slot(ofCell:)))
    }
}

/// Limits that keep a scenario from exhausting memory.
public enum ScenarioLimits {
    public static let maxFileBytes = 64 << 20
    public static let maxStations = 10_000
    public static let maxUsers = 10_000_000
    public static let maxOperations = 100_000_000
    public static let maxSteps = 1_000_000
    public static let maxCells = 16_000_000
    public static let maxDays = 3_660
}

extension Scenario {
    /// Reads and decodes a scenario file; nothing is run. Only a regular file of at most
    /// ``ScenarioLimits/maxFileBytes`` is read (``InputFile``): a fifo would block and
    /// `/dev/zero` never end.
    public static func load(path: String) throws(ScenarioError) -> Scenario {
        let data: Data
        do { data = try InputFile.bytes(path, maxBytes: ScenarioLimits.maxFileBytes) } catch {
            let limit = "at most \(ScenarioLimits.maxFileBytes) bytes"
            let (found, expected) =
                switch error {
                case .unreadable(errno: ENOENT): ("no such file", "a readable JSON file")
                case .unreadable(errno: let code):
                    ("a file that cannot be read (\(String(cString: strerror(code))))", "a readable JSON file")
                case .notRegular(let kind): (kind, "a regular JSON file")
                case .tooLarge: ("more than \(ScenarioLimits.maxFileBytes) bytes", limit)
                }
            throw ScenarioError(file: path, path: "", value: found, expected: expected)
        }
        return try decode(data, file: path)
    }

    static let knownKeys: Set<String> = [
        "version", "name", "description", "attribution", "seed", "stations", "overrides", "policy", "clock", "users",
        "workload", "timeline", "stationEvents", "steps", "expectations", "provenance", "$schema",
    ]

    /// Decodes a scenario, turning every decoding problem into a ``ScenarioError`` with a path.
    ///
    /// The text is scanned once (`JSONScan`), which also gives the top level's keys, `seed` and
    /// `version`; when they pass, `JSONDecoder` decodes straight into the scenario's structs. Only
    /// a document that fails is parsed again into a tree (`explainFailure(_:file:)`), for its
    /// message: a large valid scenario never holds a tree of Foundation objects beside its text.
    /// - Complexity: O(n) in the text; memory the text, the decoder's index of it and the result.
    public static func decode(_ data: Data, file: String) throws(ScenarioError) -> Scenario {
        let top = try JSONScan.check(data, file: file)
        let plainSeed = top.seed.map { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } } ?? true
        if top.isObject, top.keys.allSatisfy(knownKeys.contains), plainSeed, top.version ?? "1" == "1",
            let scenario = try? JSONDecoder().decode(Scenario.self, from: data)
        {
            return scenario
        }
        return try explainFailure(data, file: file)
    }

    /// The old path, for a document the fast path did not take: parses a tree and makes the same
    /// checks in the same order, so the message names the first problem with its path.
    static func explainFailure(_ data: Data, file: String) throws(ScenarioError) -> Scenario {
        let document: Any
        do { document = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "malformed JSON"
            throw ScenarioError(file: file, path: "", value: "malformed JSON (\(detail))", expected: "valid JSON")
        }
        guard let object = document as? [String: Any] else {
            throw ScenarioError(
                file: file, path: "", value: JSONPath.render(document), expected: "a JSON object (a scenario)")
        }
        if let unknown = object.keys.filter({ !knownKeys.contains($0) }).sorted().first {
            throw ScenarioError(
                file: file, path: unknown, value: "an unknown field",
                expected: "one of " + knownKeys.filter { $0 != "$schema" }.sorted().joined(separator: ", "))
        }
        if let seed = object["seed"] as? NSNumber, !(seed is Bool),
            seed.doubleValue < 0 || seed.doubleValue != seed.doubleValue.rounded()
        {
            throw ScenarioError(
                file: file, path: "seed", value: seed.stringValue, expected: "an integer 0...18446744073709551615")
        }
        if let version = object["version"] as? Int, version != 1 {
            throw ScenarioError(file: file, path: "version", value: String(version), expected: "1")
        }
        do {
            return try JSONDecoder().decode(Scenario.self, from: data)
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(let type, let context):
                throw ScenarioError(
                    file: file, path: JSONPath.string(context.codingPath),
                    value: JSONPath.value(at: context.codingPath, in: document), expected: JSONPath.typeName(type))
            case .valueNotFound(let type, let context):
                throw ScenarioError(
                    file: file, path: JSONPath.string(context.codingPath), value: "null",
                    expected: JSONPath.typeName(type))
            case .keyNotFound(let key, let context):
                throw ScenarioError(
                    file: file, path: JSONPath.string(context.codingPath + [key]), value: "nothing",
                    expected: "a required field")
            case .dataCorrupted(let context) where context.codingPath.isEmpty:
                // Foundation names no field, and says "not valid JSON" of valid JSON, when a
                // number does not fit its field's type: -1 for an id, 1e-400 for any number.
                throw ScenarioError(
                    file: file, path: "", value: "a number its field cannot hold",
                    expected: "numbers that fit their fields: no negative id or count, none too small to tell from 0 "
                        + "(1e-400) or too large for a number (1e400)")
            case .dataCorrupted(let context):
                var expected = context.debugDescription
                if let range = expected.range(of: "expected ") { expected = String(expected[range.upperBound...]) }
                if expected.contains("Cannot initialize") || expected.contains("Parsed JSON number") {
                    expected = "a value in range for this field"
                }
                throw ScenarioError(
                    file: file, path: JSONPath.string(context.codingPath),
                    value: JSONPath.value(at: context.codingPath, in: document), expected: expected)
            @unknown default:
                throw ScenarioError(file: file, path: "", value: "undecodable data", expected: "a scenario")
            }
        } catch {
            throw ScenarioError(file: file, path: "", value: "undecodable data", expected: "a scenario")
        }
    }

    /// Checks every field and compiles the scenario for running.
    public func prepare(file: String) throws(ScenarioError) -> PreparedScenario {
        func fail(_ path: String, _ value: String, _ expected: String) -> ScenarioError {
            ScenarioError(file: file, path: path, value: value, expected: expected)
        }
        func check(_ ok: Bool, _ path: String, _ value: @autoclosure () -> String, _ expected: String)
            throws(ScenarioError)
        {
            if !ok { throw fail(path, value(), expected) }
        }
        try check(version == 1, "version", String(version), "1")
        try check(!name.isEmpty && name.count <= 200, "name", name.debugDescription, "1 to 200 characters")
        try check(
            (1...ScenarioLimits.maxStations).contains(stations.count), "stations", "\(stations.count) stations",
            "1...\(ScenarioLimits.maxStations) stations")
        try check(
            policy.lastDate == nil || policy.rollingDays == nil, "policy.rollingDays",
            String(policy.rollingDays ?? 0), "no rollingDays beside lastDate (one horizon: a last date or rolling days)"
        )
        let rules: Rules
        do {
            rules = try Rules(catalog: try Catalog(stations), policy: policy.policy)
        } catch {
            var path = error.field
            if path.hasPrefix("policy.horizon.rollingDays") { path = "policy.rollingDays" }
            throw fail(path, error.value, error.expected)
        }
        let catalog = rules.catalog
        try check(
            (1...ScenarioLimits.maxUsers).contains(users.count), "users.count", String(users.count),
            "1...\(ScenarioLimits.maxUsers) users")
        let firstUser = users.firstID ?? 1
        try check(
            firstUser <= UInt64.max / 2, "users.firstID", String(firstUser), "an id below \(UInt64.max / 2)")
        try check(
            clock.stepSeconds >= 0 && clock.stepSeconds <= 86_400, "clock.stepSeconds", String(clock.stepSeconds),
            "0...86400 seconds")
        if let per = clock.operationsPerStep {
            try check(per >= 1 && per <= 1_000_000_000, "clock.operationsPerStep", String(per), "1 or more")
        }
        try check(
            LocalDate.supportedYears.contains(
                LocalDate(dayNumber: Int32(clock.start.instant.secondsSinceEpoch / 86_400)).year),
            "clock.start", clock.start.description, "a time in the years 1900...2399")

        // Every date the scenario mentions, for the domain.
        var dayLow = Int32.max
        var dayHigh = Int32.min
        func include(_ date: LocalDate) {
            dayLow = min(dayLow, date.dayNumber)
            dayHigh = max(dayHigh, date.dayNumber)
        }
        func socketKnown(_ station: StationID?, _ socket: SocketID?, at path: String) throws(ScenarioError) {
            guard let station else { throw fail("\(path).station", "nothing", "a station id") }
            guard let info = catalog.station(station) else {
                throw fail(
                    "\(path).station", station.rawValue.debugDescription,
                    "one of the scenario's stations (" + stations.prefix(5).map(\.id.rawValue).joined(separator: ", ")
                        + (stations.count > 5 ? ", ..." : "") + ")")
            }
            if let socket, !info.sockets.contains(where: { $0.id == socket }) {
                throw fail(
                    "\(path).socket", socket.rawValue.debugDescription,
                    "a socket of station \(station) (" + info.sockets.map(\.id.rawValue).joined(separator: ", ") + ")")
            }
        }
        for (i, change) in (overrides ?? []).enumerated() {
            try socketKnown(change.station, change.socket, at: "overrides[\(i)]")
            include(change.date)
        }
        var workloadCandidates = 0
        if let w = workload {
            try check(
                (0...ScenarioLimits.maxOperations).contains(w.operations), "workload.operations", String(w.operations),
                "0...\(ScenarioLimits.maxOperations) operations")
            let weights: [(String, Int?)] = [
                ("reserve", w.mix.reserve), ("cancel", w.mix.cancel), ("query", w.mix.query),
                ("availability", w.mix.availability), ("retry", w.mix.retry), ("hold", w.mix.hold),
                ("confirm", w.mix.confirm), ("releaseHold", w.mix.releaseHold), ("reschedule", w.mix.reschedule),
                ("anySocket", w.mix.anySocket), ("checkIn", w.mix.checkIn), ("checkOut", w.mix.checkOut),
            ]
            for (key, weight) in weights {
                try check(
                    (0...1_000_000).contains(weight ?? 0), "workload.mix.\(key)", String(weight ?? 0),
                    "a weight 0...1000000")
            }
            try check(
                weights.reduce(0) { $0 + ($1.1 ?? 0) } > 0 || w.operations == 0, "workload.mix", "all weights 0",
                "at least one positive weight")
            try check(
                (1...ScenarioLimits.maxDays).contains(w.dates.days), "workload.dates.days", String(w.dates.days),
                "1...\(ScenarioLimits.maxDays) days")
            include(w.dates.from)
            include(w.dates.from.adding(days: w.dates.days - 1))
            let hours = w.hours ?? .allDay
            try check(!hours.isEmpty, "workload.hours", "[]", "at least one hour 0...23")
            workloadCandidates = catalog.socketCount * w.dates.days * hours.count
            if let hot = w.hotness {
                try check(
                    (0...min(10_000, workloadCandidates)).contains(hot.slots), "workload.hotness.slots",
                    String(hot.slots), "0...\(min(10_000, workloadCandidates)) (no more than the candidate slots)")
                try check(
                    hot.share.isFinite && (0...1).contains(hot.share), "workload.hotness.share", String(hot.share),
                    "a fraction 0...1")
            }
            if let c = w.concurrency {
                try check((1...1024).contains(c), "workload.concurrency", String(c), "1...1024 workers")
            }
            if let km = w.leftWithinKm {
                try check(km.isFinite && (0...100).contains(km), "workload.leftWithinKm", String(km), "0...100 km")
                if let i = catalog.stations.firstIndex(where: { $0.coordinate == nil }) {
                    throw fail(
                        "stations[\(i)].coordinate", "nothing",
                        "a coordinate (workload.leftWithinKm moves every station from its place)")
                }
            }
        }
        for (i, change) in (timeline ?? []).enumerated() {
            try socketKnown(change.station, change.socket, at: "timeline[\(i)]")
            try check(
                (0...(workload?.operations ?? 0)).contains(change.atOperation), "timeline[\(i)].atOperation",
                String(change.atOperation), "0...workload.operations")
            include(change.date)
        }
        for (i, event) in (stationEvents ?? []).enumerated() {
            try socketKnown(event.station, event.socket, at: "stationEvents[\(i)]")
            try check(
                (0...(workload?.operations ?? 0)).contains(event.atOperation), "stationEvents[\(i)].atOperation",
                String(event.atOperation), "0...workload.operations")
            if let hours = event.faultHorizonHours {
                try check((1...48).contains(hours), "stationEvents[\(i)].faultHorizonHours", String(hours), "1...48")
            }
        }
        let steps = self.steps ?? []
        try check(
            steps.count <= ScenarioLimits.maxSteps, "steps", "\(steps.count) steps",
            "at most \(ScenarioLimits.maxSteps)")
        let reasons = Set(Rejection.Reason.allCases.map(\.rawValue))
        let statuses = Set(SlotStatus.allCases.map(\.rawValue))
        var labels: [String: Int] = [:]
        var now = clock.start.instant.secondsSinceEpoch
        var times: [Int64] = []
        for (i, step) in steps.enumerated() {
            let path = "steps[\(i)]"
            if let at = step.at {
                try check(
                    at.instant.secondsSinceEpoch >= now, "\(path).at", at.description,
                    "a time not before the previous step (\(Instant(secondsSinceEpoch: now)))")
                now = at.instant.secondsSinceEpoch
            }
            times.append(now)
            if step.at == nil { now += clock.stepSeconds }
            func slot() throws(ScenarioError) {
                try socketKnown(step.station, step.socket, at: path)
                guard step.socket != nil else { throw fail("\(path).socket", "nothing", "a socket id") }
                guard let date = step.date else { throw fail("\(path).date", "nothing", "a date YYYY-MM-DD") }
                include(date)
                guard let hour = step.hour else { throw fail("\(path).hour", "nothing", "an hour 0...23") }
                try check((0...23).contains(hour), "\(path).hour", String(hour), "an hour 0...23")
            }
            func user() throws(ScenarioError) {
                guard step.user != nil else { throw fail("\(path).user", "nothing", "a user id") }
            }
            func requestID() throws(ScenarioError) {
                if let id = step.requestID, let expected = IdentifierRule.problem(in: id.rawValue) {
                    throw fail("\(path).requestID", IdentifierRule.shortened(id.rawValue).debugDescription, expected)
                }
            }
            func earlierBooking() throws(ScenarioError) {
                let expected = "the label of an earlier reserve, confirm or anySocket step"
                guard let label = step.booking else { throw fail("\(path).booking", "nothing", expected) }
                try check(labels[label] != nil, "\(path).booking", label.debugDescription, expected)
            }
            switch step.op {
            case .query: try slot()
            case .reserve, .hold, .confirm, .releaseHold:
                try slot()
                try user()
                try requestID()
            case .anySocket:
                try socketKnown(step.station, nil, at: path)
                guard let date = step.date else { throw fail("\(path).date", "nothing", "a date YYYY-MM-DD") }
                include(date)
                guard let hour = step.hour else { throw fail("\(path).hour", "nothing", "an hour 0...23") }
                try check((0...23).contains(hour), "\(path).hour", String(hour), "an hour 0...23")
                try user()
                try requestID()
                guard let connector = step.connector else { throw fail("\(path).connector", "nothing", "a connector") }
                try check(
                    !connector.trimmingCharacters(in: .whitespaces).isEmpty && connector.utf8.count <= 64,
                    "\(path).connector", connector.debugDescription, "a connector name of 1...64 bytes")
                let power = step.minimumPowerKW ?? 0
                try check(
                    power.isFinite && (0...10_000).contains(power), "\(path).minimumPowerKW", String(power),
                    "a power 0...10000 kW")
            case .reschedule:
                try slot()
                try user()
                try requestID()
                try earlierBooking()
            case .cancel, .checkIn, .checkOut:
                try user()
                try earlierBooking()
            case .changeAvailability:
                try socketKnown(step.station, step.socket, at: path)
                guard let date = step.date else { throw fail("\(path).date", "nothing", "a date YYYY-MM-DD") }
                include(date)
                for (j, label) in (step.expectDisplaced ?? []).enumerated() {
                    try check(
                        labels[label] != nil, "\(path).expectDisplaced[\(j)]", label.debugDescription,
                        "the label of an earlier reserve, confirm or anySocket step")
                }
            }
            if let code = step.accessCode {
                try check(
                    step.op == .checkIn && IdentifierRule.isValid(code), "\(path).accessCode", code.debugDescription,
                    "an access code (1...256 bytes) on a checkIn step")
            }
            if let place = step.leftAt {
                try check(
                    step.op == .checkOut && place.isValid, "\(path).leftAt", place.pair,
                    "a place on Earth (latitude -90...90, longitude -180...180) on a checkOut step")
            }
            if let label = step.label, [.reserve, .confirm, .anySocket].contains(step.op) {
                try check(
                    labels.updateValue(i, forKey: label) == nil, "\(path).label", label.debugDescription,
                    "a label not used by an earlier step")
            }
            if let expect = step.expect {
                let valid =
                    step.op == .query ? statuses.contains(expect) : expect == "accepted" || reasons.contains(expect)
                try check(
                    valid, "\(path).expect", expect.debugDescription,
                    step.op == .query
                        ? "a slot status (" + SlotStatus.allCases.map(\.rawValue).joined(separator: ", ") + ")"
                        : "accepted or a refusal reason ("
                            + Rejection.Reason.allCases.map(\.rawValue).joined(
                                separator: ", ") + ")")
            }
        }
        if let e = expectations {
            for (i, id) in (e.invariants ?? []).enumerated() {
                try check(
                    Invariant(rawValue: id) != nil, "expectations.invariants[\(i)]", id.debugDescription,
                    "one of " + Invariant.allCases.map(\.rawValue).joined(separator: ", "))
            }
            for key in (e.counts ?? [:]).keys.sorted() {
                let valid =
                    Report.countKeys.contains(key)
                    || (key.hasPrefix("refused.") && reasons.contains(String(key.dropFirst("refused.".count))))
                try check(
                    valid, "expectations.counts.\(key)", key.debugDescription,
                    Report.countKeys.sorted().joined(separator: ", ") + " or refused.<reason>")
                if let range = e.counts?[key] {
                    for (name, value) in [("min", range.min), ("max", range.max), ("exactly", range.exactly)] {
                        if let value {
                            try check(
                                value >= 0, "expectations.counts.\(key).\(name)", String(value), "a count of 0 or more")
                        }
                    }
                }
            }
        }

        // The domain.
        if dayLow > dayHigh {
            let today = Int32(clock.start.instant.secondsSinceEpoch / 86_400)
            (dayLow, dayHigh) = (today, today)
        }
        let days = Int(dayHigh - dayLow) + 1
        try check(
            days <= ScenarioLimits.maxDays, "(dates)", "\(days) days from first to last date",
            "at most \(ScenarioLimits.maxDays) days between the earliest and latest date mentioned")
        let cells = catalog.socketCount * days * 24
        try check(
            cells <= ScenarioLimits.maxCells, "stations", "\(catalog.socketCount) sockets × \(days) days × 24 hours",
            "at most \(ScenarioLimits.maxCells) socket-hours in the scenario's dates")
        let (refs, starts) = try Self.slotTable(catalog, firstDay: dayLow, days: days, cells: cells, file: file)
        let grid = CellGrid(days: Int32(days), firstDay: dayLow)
        let (candidates, hot) = workloadCells(grid, starts: starts, socketCount: catalog.socketCount)
        let compiled = compiledSteps(steps, times: times, labels: labels, catalog: catalog, grid: grid)
        let (timeline, faulted) = compiledTimeline(
            workloadStart: now, catalog: catalog, grid: grid)
        return PreparedScenario(
            scenario: self, file: file, rules: rules, firstDay: dayLow, days: days, socketCount: catalog.socketCount,
            refs: refs, starts: starts, candidates: candidates, hot: hot, steps: compiled, timeline: timeline,
            faultedCells: faulted, workloadStart: now, firstUser: firstUser, userCount: users.count)
    }
}
