import ArgumentParser
import Foundation
import SlotScheduler
import SlotSimulation

extension ScheduleSim {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Turn a charging-session CSV into a replay scenario.",
            discussion: """
                Columns are chosen by header name. Each session becomes a reservation of its socket for \
                its start hour (with --end or --duration: every hour it overlaps, at most 24), requested \
                --lead-hours before. Success or failure, the importer prints the rows read, the steps \
                written and what it skipped, by reason; the report of the replay counts the sessions that \
                collide. Rows without a user id are booked as users of their own; user ids that are not \
                numbers are numbered in order of first appearance.

                Without column options the layout is --preset dundee (Dundee City Council's sessions; \
                contains public sector information licensed under the Open Government Licence v3.0).

                Examples:
                  schedule-sim import ../shared/data/dundee-charging-sessions-2018-06-06_2018-09-06.csv
                  schedule-sim import palo-alto.csv --output palo-alto.json --start "Start Date" \\
                    --station "Station Name" --socket "Port Number" --user "User ID" \\
                    --zone-label "Start Time Zone" --duration "Total Duration (hh:mm:ss)" \\
                    --time-zone America/Los_Angeles
                  schedule-sim import perth.csv --output perth.json --start "Start Date" \\
                    --start-time "Start Time" --station Site --socket "CP ID" --socket Connector \\
                    --time-zone Europe/London
                """)

        @Argument(help: "The CSV file.")
        var csv: String

        @Option(
            name: .shortAndLong,
            help: "Where to write the scenario (default for --preset dundee: Scenarios/dundee-2018.json).")
        var output: String?

        @Option(
            help:
                "A known layout: \(SessionLayout.presets.keys.sorted().joined(separator: ", ")). Column options override it."
        )
        var preset: String?

        @Option(help: "The start column: a date, or a date and time.")
        var start: String?

        @Option(help: "The start time column, when the time has a column of its own.")
        var startTime: String?

        @Option(help: "The station (site) name column.")
        var station: String?

        @Option(help: "The socket column; repeat to join several (\"CP ID\" and \"Connector\").")
        var socket: [String] = []

        @Option(help: "The user id column (without one, every row is a user of its own).")
        var user: String?

        @Option(help: "The end column (a date, or a date and time): book every hour the session overlaps.")
        var end: String?

        @Option(help: "The end time column, when the time has a column of its own.")
        var endTime: String?

        @Option(help: "The duration column (h:mm:ss, h:mm or minutes), instead of an end.")
        var duration: String?

        @Option(help: "The column with the start's zone label (PDT/PST, BST/GMT, +01:00).")
        var zoneLabel: String?

        @Option(help: "A numeric session id column: duplicates are skipped.")
        var event: String?

        @Option(help: "The charger model column (sets each socket's connector and power).")
        var model: String?

        @Option(help: "The date order, when the dates cannot tell: ymd, dmy or mdy.")
        var dateOrder: String?

        @Option(help: "The stations' IANA time zone, e.g. America/Los_Angeles.")
        var timeZone: String?

        @Option(help: "How many hours ahead each booking is requested.")
        var leadHours: Int?

        @Option(help: "How many upcoming bookings a user may hold (the scenario's policy).")
        var maxUpcomingBookings: Int?

        @Option(help: "The scenario's name (default: the preset's, else the file's name).")
        var name: String?

        /// The preset: as given, else dundee when no column is given (the command before presets).
        var presetName: String? {
            preset ?? (start == nil && station == nil && socket.isEmpty ? "dundee" : nil)
        }

        /// The layout: the preset, then each column option.
        func layout() throws(ValidationError) -> SessionLayout {
            var layout: SessionLayout
            if let presetName {
                guard let known = SessionLayout.presets[presetName] else {
                    throw ValidationError(
                        "unknown --preset \(presetName); known: \(SessionLayout.presets.keys.sorted().joined(separator: ", "))"
                    )
                }
                layout = known
            } else {
                guard let start, let station, !socket.isEmpty, let timeZone else {
                    throw ValidationError(
                        "without --preset, give --start, --station, --socket and --time-zone (the columns by header name)"
                    )
                }
                layout = SessionLayout(start: start, station: station, socket: socket, timeZone: timeZone)
            }
            if let start { layout.start = start }
            if let station { layout.station = station }
            if !socket.isEmpty { layout.socket = socket }
            if let timeZone { layout.timeZone = timeZone }
            if let startTime { layout.startTime = startTime }
            if let user { layout.user = user }
            if let end { layout.end = end }
            if let endTime { layout.endTime = endTime }
            if let duration { layout.duration = duration }
            if let zoneLabel { layout.zoneLabel = zoneLabel }
            if let event { layout.event = event }
            if let model { layout.model = model }
            if let name { layout.name = name }
            if let dateOrder {
                guard let order = SessionLayout.DateOrder(rawValue: dateOrder) else {
                    throw ValidationError("--date-order must be ymd, dmy or mdy")
                }
                layout.dateOrder = order
            }
            if let leadHours {
                guard SessionLayout.leadHoursRange.contains(leadHours) else {
                    throw ValidationError("--lead-hours must be \(SessionLayout.leadHoursRange)")
                }
                layout.leadHours = leadHours
            }
            if let maxUpcomingBookings {
                guard (1...1_000_000).contains(maxUpcomingBookings) else {
                    throw ValidationError("--max-upcoming-bookings must be 1...1000000")
                }
                layout.maxUpcomingBookings = maxUpcomingBookings
            }
            return layout
        }

        func outputPath() throws(ValidationError) -> String {
            if let output { return output }
            if presetName == "dundee" { return "Scenarios/dundee-2018.json" }
            throw ValidationError("give --output FILE (where to write the scenario)")
        }

        func validate() throws {
            _ = try layout()
            _ = try outputPath()
        }

        func run() throws {
            let layout = try layout()
            let output = try outputPath()
            try checkOutputs([(output, .scenario)], inputs: [csv])
            let scenario: Scenario
            do { scenario = try SessionImporter.makeScenario(csvPath: csv, layout: layout) } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                for line in error.counts.lines { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
                throw ExitCode(error.kind == .unreadable ? 66 : 65)
            }
            var counts = ImportCounts()
            if let p = scenario.provenance {
                counts.rowsRead = p.rowsRead
                counts.stepsWritten = p.stepsWritten
                counts.skipped = p.skipped
            }
            // Named after the CSV: what is wrong came from its rows (the output is not written).
            do { _ = try scenario.prepare(file: csv) } catch {
                for line in counts.lines { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
                throw refuse(error)
            }
            let data = DundeeImporter.encode(scenario)
            guard data.count <= ScenarioLimits.maxFileBytes else {
                FileHandle.standardError.write(
                    Data(
                        ("error: \(csv): the scenario would be \(data.count) bytes, more than a scenario file holds "
                            + "(\(ScenarioLimits.maxFileBytes)): import a shorter period\n").utf8))
                for line in counts.lines { FileHandle.standardError.write(Data("\(line)\n".utf8)) }
                throw ExitCode(65)
            }
            try writeAtomically(data, to: output, as: .scenario)
            let sockets = scenario.stations.reduce(0) { $0 + $1.sockets.count }
            print("wrote \(output): \(scenario.stations.count) stations, \(sockets) sockets")
            for line in counts.lines { print(line) }
            for note in scenario.provenance?.notes ?? [] { print("  note: \(note)") }
        }
    }
}
