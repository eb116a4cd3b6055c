import Foundation
import SlotScheduler

/// A run against a target, as `run --target --history FILE` writes it, so that it can be checked
/// again later (`schedule-sim verify-target`): one JSON object per line, each with a `kind`:
/// - first `run`: how the run was set up (``Setup``);
/// - then `invoke`, `ok`, `fail`, `info`: the history (``TargetEvent``), in time order;
/// - then `listed`: the bookings read back, `when` `before` the run (with `--check rules`) or
///   `after` it;
/// - last `place`: where the API lists each station after a run whose check-outs moved
///   vehicles (``places``).
public struct TargetRecord: Sendable, Equatable {
    /// What the checks need to know of the run besides its events.
    public struct Setup: Codable, Sendable, Equatable {
        /// The record's format: 1.
        public var version = 1
        public var scenario: String
        public var target: String
        /// Days added to the scenario's dates.
        public var shiftDays: Int
        /// The run's start on the target's clock (seconds since the epoch), and the estimate's error.
        public var clockStart: Double
        public var clockTolerance: Double

        public init(scenario: String, target: String, shiftDays: Int, clock: RulesCheck.TargetClock) {
            self.scenario = scenario
            self.target = target
            self.shiftDays = shiftDays
            clockStart = clock.start
            clockTolerance = clock.tolerance
        }

        public var clock: RulesCheck.TargetClock { .init(start: clockStart, tolerance: clockTolerance) }
    }

    public var setup: Setup
    public var history: [TargetEvent]
    public var before: [ListedBooking]
    public var listed: [ListedBooking]
    /// The stations' places read after the run, when a check-out moved a vehicle and the adapter
    /// says where an answer keeps places; empty otherwise (I21 is then not checked).
    public var places: [StationPlace]

    public init(
        setup: Setup, history: [TargetEvent], before: [ListedBooking], listed: [ListedBooking],
        places: [StationPlace] = []
    ) {
        self.setup = setup
        self.history = history
        self.before = before
        self.listed = listed
        self.places = places
    }

    /// One line of the file: the fields of every kind, those a kind does not have absent.
    struct Line: Codable {
        var kind: String
        // run
        var version: Int?
        var scenario: String?
        var target: String?
        var shiftDays: Int?
        var clockStart: Double?
        var clockTolerance: Double?
        // events and listed bookings
        var index: Int?
        var process: Int?
        var operation: String?
        var user: UInt64?
        var slot: String?
        var requestID: String?
        var booking: String?
        var hold: String?
        var status: Int?
        var reason: String?
        var wrongCode: Bool?
        var leftAt: Coordinate?
        var time: Int64?
        var when: String?
        var live: Bool?
        // place
        var station: String?
        var place: Coordinate?
    }

    /// The file's text: the setup, the events, the bookings read back.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func line(_ value: Line) -> String {
            (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        var lines = [
            line(
                Line(
                    kind: "run", version: setup.version, scenario: setup.scenario, target: setup.target,
                    shiftDays: setup.shiftDays, clockStart: setup.clockStart, clockTolerance: setup.clockTolerance))
        ]
        lines += history.map(\.jsonLine)
        for (when, bookings) in [("before", before), ("after", listed)] {
            for b in bookings {
                lines.append(
                    line(Line(kind: "listed", user: b.user, slot: b.slot, booking: b.id, when: when, live: b.live)))
            }
        }
        lines += places.map { line(Line(kind: "place", station: $0.station, place: $0.place)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a record; a line that is not one names its number and what is wrong.
    public static func read(path: String) throws(TargetRecordError) -> TargetRecord {
        var setup: Setup?
        var record = TargetRecord(
            setup: Setup(scenario: "", target: "", shiftDays: 0, clock: .init(start: 0, tolerance: 0)), history: [],
            before: [], listed: [])
        let decoder = JSONDecoder()
        do {
            try LineReader.forEachLine(path: path) { (data, number, _) throws(SimulationIOError) in
                let fail = { (problem: String) in SimulationIOError(path: path, problem: "line \(number): \(problem)") }
                let line: Line
                do { line = try decoder.decode(Line.self, from: data) } catch {
                    throw fail("not a line of a target run's record")
                }
                if setup == nil {
                    guard line.kind == "run", line.version == 1, let scenario = line.scenario, let target = line.target,
                        let shift = line.shiftDays, let start = line.clockStart, let tolerance = line.clockTolerance
                    else {
                        throw fail(
                            "the first line must be the run's setup (kind run, version 1), as `run --target --history` writes it"
                        )
                    }
                    let clock = RulesCheck.TargetClock(start: start, tolerance: tolerance)
                    guard clock.isValid else {
                        throw fail(
                            "the setup's clockStart must be seconds since 1970 in the years 1900...2399 and its "
                                + "clockTolerance 0...86400 seconds, not \(start) and \(tolerance)")
                    }
                    setup = Setup(scenario: scenario, target: target, shiftDays: shift, clock: clock)
                    return
                }
                switch line.kind {
                case "listed":
                    guard let booking = line.booking, let user = line.user, let slot = line.slot,
                        let when = line.when, when == "before" || when == "after"
                    else { throw fail("a listed booking needs booking, user, slot and when (before or after)") }
                    let listed = ListedBooking(id: booking, user: user, slot: slot, live: line.live ?? true)
                    if when == "before" { record.before.append(listed) } else { record.listed.append(listed) }
                case "place":
                    guard let station = line.station else { throw fail("a place needs its station") }
                    record.places.append(StationPlace(station: station, place: line.place))
                default:
                    guard let kind = TargetEvent.Kind(rawValue: line.kind), let index = line.index,
                        let process = line.process, let operation = line.operation, let user = line.user,
                        let time = line.time
                    else { throw fail("an event needs kind, index, process, operation, user and time") }
                    var event = TargetEvent(
                        index: index, process: process, kind: kind, operation: operation, user: user,
                        slot: line.slot, requestID: line.requestID, booking: line.booking, hold: line.hold,
                        status: line.status, reason: line.reason, time: time)
                    event.wrongCode = line.wrongCode
                    event.leftAt = line.leftAt
                    record.history.append(event)
                }
            }
        } catch { throw TargetRecordError(description: "\(error)") }
        guard let setup else { throw TargetRecordError(description: "\(path): empty, not a target run's record") }
        record.setup = setup
        return record
    }
}

/// A record that cannot be read: which file, which line, and why.
public struct TargetRecordError: Error, CustomStringConvertible, Equatable {
    public var description: String
}
