import Foundation
import SlotScheduler

extension SessionImporter {
    /// The layout's columns as indices into the header.
    struct Columns {
        var start: Int
        var startTime: Int?
        var station: Int
        var socket: [Int]
        var user: Int?
        var end: Int?
        var endTime: Int?
        var duration: Int?
        var zoneLabel: Int?
        var event: Int?
        var model: Int?
        /// The largest index: a shorter row is malformed.
        var last: Int

        init(_ table: CSVTable, layout: SessionLayout, path: String) throws(ImportError) {
            func index(_ option: String, _ name: String) throws(ImportError) -> Int {
                let found = table.columns(name)
                guard let i = found.first else {
                    throw .missingColumn(path, option: option, name: name, header: table.header)
                }
                guard found.count == 1 else {
                    throw ImportError(
                        kind: .data, file: path,
                        problem:
                            "\(found.count) columns are named \(name.debugDescription) (\(option)): columns \(found.map { String($0 + 1) }.joined(separator: ", ")) of the header; rename all but one",
                        counts: ImportCounts())
                }
                return i
            }
            func optional(_ option: String, _ name: String?) throws(ImportError) -> Int? {
                guard let name else { return nil }
                return try index(option, name)
            }
            start = try index("--start", layout.start)
            station = try index("--station", layout.station)
            socket = []
            for name in layout.socket { socket.append(try index("--socket", name)) }
            startTime = try optional("--start-time", layout.startTime)
            user = try optional("--user", layout.user)
            end = try optional("--end", layout.end)
            endTime = try optional("--end-time", layout.endTime)
            duration = try optional("--duration", layout.duration)
            zoneLabel = try optional("--zone-label", layout.zoneLabel)
            event = try optional("--event", layout.event)
            model = try optional("--model", layout.model)
            let all =
                [start, station] + socket
                + [startTime, user, end, endTime, duration, zoneLabel, event, model]
                .compactMap { $0 }
            last = all.max() ?? 0
        }
    }

    /// One row that will be booked.
    struct Session {
        var line: Int
        var event: Int
        var user: UInt64
        var station: String
        var socket: String
        var kind: (ConnectorType, Double)
        /// The local slots it books, the start hour first.
        var slots: [(date: LocalDate, hour: Int)]
    }

    /// Reads rows into sessions, counting what it skips and notes.
    struct RowReader {
        let columns: Columns
        let order: SessionLayout.DateOrder
        let zone: ZoneReader
        let layout: SessionLayout
        var counts: ImportCounts
        var seenEvents = Set<Int>()
        var textUsers: [String: UInt64] = [:]
        /// The row being read, for a skip's example.
        var row: CSVTable.Row?

        static let textUserBase: UInt64 = 1 << 40
        static let ownUserBase: UInt64 = 1 << 41

        mutating func session(_ row: CSVTable.Row) -> Session? {
            self.row = row
            let f = row.fields
            guard f.count > columns.last else { return skip("malformed row (fewer columns than the header needs)") }
            func field(_ i: Int?) -> String? { i.map { f[$0].trimmingSpaces } }
            var event = 0
            if let text = field(columns.event) {
                guard let number = Int(text) else { return skip("session id missing or not a number") }
                guard seenEvents.insert(number).inserted else { return skip("duplicate session id") }
                event = number
            }
            // Canonically equivalent spellings (é as one scalar or as e and a combining accent)
            // are one name: Swift's `==` says so, and the catalog compares bytes.
            let station = f[columns.station].trimmingSpaces.precomposedStringWithCanonicalMapping
            let socket = columns.socket.map { f[$0].trimmingSpaces.precomposedStringWithCanonicalMapping }
            guard !station.isEmpty, !socket.contains(where: \.isEmpty) else {
                return skip("missing station or socket")
            }
            // A socket id follows the identifier rule (a station's is a slug of its name).
            guard IdentifierRule.problem(in: socket.joined(separator: "-")) == nil else {
                return skip("a socket that cannot be an id (a control character, or more than 128 bytes)")
            }
            guard let local = SessionTime.dateTime(f[columns.start], time: field(columns.startTime), order: order)
            else {
                return skip("unparseable start date or time")
            }
            guard let start = startInstant(local, label: field(columns.zoneLabel)) else { return nil }
            guard let hours = hours(from: start, fields: f) else { return nil }
            let hourStart = zone.hourStart(of: start)
            var slots: [(date: LocalDate, hour: Int)] = []
            for k in 0..<hours {
                let slot = zone.local(hourStart + Int64(k) * 3_600)
                // The repeated hour's second occurrence names the same slot again: it has none of its own.
                if !slots.contains(where: { $0 == slot }) { slots.append(slot) }
            }
            return Session(
                line: row.line, event: event, user: user(field(columns.user), line: row.line), station: station,
                socket: socket.joined(separator: "-"), kind: SessionImporter.socketKind(model: field(columns.model)),
                slots: slots)
        }

        /// The instant a start names: by the offset its text wrote, else by the zone label when
        /// there is one (both: they must agree); nil (counted) if none.
        mutating func startInstant(_ local: LocalDateTime, label: String?) -> Int64? {
            var offsets: [Int64]?
            if let label, !label.isEmpty {
                guard let named = ZoneLabel.offsets(label) else { return skip("zone label not recognised") }
                offsets = named
            }
            if let written = local.offset {
                guard offsets?.contains(written) ?? true else {
                    return skip("zone label does not match the offset the time was written with")
                }
                let instant = local.wallSeconds - written
                // The same rule as a labelled start: the second occurrence has no slot of its own.
                if zone.isSecondOccurrence(instant) {
                    return skip("start in the second occurrence of the repeated autumn hour (a slot names the first)")
                }
                return instant
            }
            let candidates = zone.instants(local)
            guard let first = candidates.first else { return skip("start at a local time that does not exist") }
            guard let offsets else {
                if candidates.count > 1 {
                    counts.note("starts in the repeated autumn hour taken as its first occurrence (no zone label)")
                }
                return first
            }
            guard let match = candidates.first(where: { offsets.contains(zone.offset(at: $0)) }) else {
                return skip("zone label does not match the time zone at that time")
            }
            if match != first {
                return skip("start in the second occurrence of the repeated autumn hour (a slot names the first)")
            }
            return match
        }

        /// How many hours the session books: 1 without an end or duration.
        mutating func hours(from start: Int64, fields f: [String]) -> Int? {
            var end: Int64?
            if let i = columns.duration {
                guard let seconds = SessionTime.duration(f[i]) else { return skip("unparseable end or duration") }
                end = start + seconds
            } else if let i = columns.end {
                let time = columns.endTime.map { f[$0] }
                guard let local = SessionTime.dateTime(f[i], time: time, order: order) else {
                    return skip("unparseable end or duration")
                }
                // An end in the repeated autumn hour is the first of its instants after the start.
                let instants = zone.instants(local)
                end =
                    local.offset.map { local.wallSeconds - $0 } ?? instants.first(where: { $0 > start })
                    ?? instants.first ?? local.wallSeconds - zone.offset(at: local.wallSeconds - 43_200)
            }
            guard let end else { return 1 }
            guard end > start else { return skip("end not after start") }
            let hourStart = zone.hourStart(of: start)
            let hours = (end - hourStart + 3_599) / 3_600
            if hours > Int64(SessionImporter.maxSessionHours) {
                counts.note(
                    "sessions over more than \(SessionImporter.maxSessionHours) clock hours (only their first \(SessionImporter.maxSessionHours) booked)"
                )
            }
            return Int(min(hours, Int64(SessionImporter.maxSessionHours)))
        }

        /// The user id; see ``SessionImporter`` for the rule.
        mutating func user(_ text: String?, line: Int) -> UInt64 {
            guard let text, !text.isEmpty else {
                if columns.user != nil { counts.note("rows without a user id (each booked as a user of its own)") }
                return Self.ownUserBase + UInt64(line)
            }
            // Digits only: `UInt64("+7")` is 7, and "+7" is another user's text.
            if text.utf8.allSatisfy({ (48...57).contains($0) }), let number = UInt64(text), number < Self.textUserBase {
                return number
            }
            counts.note("user ids that are not numbers (numbered from 2^40 in order of first appearance)")
            if let known = textUsers[text] { return known }
            let id = Self.textUserBase + UInt64(textUsers.count)
            textUsers[text] = id
            return id
        }

        mutating func skip<T>(_ reason: String) -> T? {
            counts.skip(reason, line: row?.line, value: row.flatMap { Self.shownStart($0, columns) })
            return nil
        }

        /// The start (and start time) a row holds, for a skip's example.
        static func shownStart(_ row: CSVTable.Row, _ columns: Columns) -> String? {
            let fields = [columns.start] + (columns.startTime.map { [$0] } ?? [])
            let values = fields.compactMap { $0 < row.fields.count ? row.fields[$0] : nil }
            return values.isEmpty ? nil : values.joined(separator: " ")
        }
    }
}
