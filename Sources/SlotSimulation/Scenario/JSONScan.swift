import Foundation

/// One pass over a scenario's JSON text, before it is decoded, for what the decoders let through
/// silently or report without a path:
///
/// - a key given twice in one object (the decoder keeps one value, a pre-check may read the
///   other): refused with the key's path;
/// - a comma before `]` or `}`, which the decoder accepts and JSON does not;
/// - a number with a fraction (`2.5`) where an integer belongs: refused with its path;
/// - an integer too large for any field (over 2^64 - 1), or over 2^63 - 1 where the field is not
///   one of the unsigned ones (`seed`, `users.firstID`, a step's `user`): refused with its path
///   and value instead of a message naming the whole document.
///
/// Malformed JSON is left to the decoder, which says where: the scan stops at the first byte it
/// does not expect.
/// - Complexity: O(n) in the length of the text; memory O(depth + keys of the open objects).
enum JSONScan {
    /// Fields that hold a date: exactly `YYYY-MM-DD` (the decoder would take `2024-+6-+2`).
    static let datePaths: Set<String> = [
        "policy.lastDate", "workload.dates.from", "overrides[].date", "timeline[].date", "steps[].date",
    ]
    /// Lists of hours (elements): each hour at most once, as the schema's `uniqueItems` says.
    static let hourListPaths: Set<String> = [
        "stations[].openingHours[]", "stations[].sockets[].openingHours[]", "overrides[].hours[]",
        "timeline[].hours[]", "steps[].hours[]", "workload.hours[]",
    ]

    static func isDate(_ text: String) -> Bool {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
        return [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy { (0x30...0x39).contains(b[$0]) }
    }

    /// The only fields that hold a number with a fraction; every other number is an integer.
    static let decimalPaths: Set<String> = [
        "stations[].coordinate.latitude", "stations[].coordinate.longitude", "stations[].sockets[].powerKW",
        "workload.hotness.share", "workload.leftWithinKm", "steps[].leftAt.latitude", "steps[].leftAt.longitude",
        "steps[].minimumPowerKW",
    ]

    /// Every field below the top level (whose keys ``Scenario/knownKeys`` holds), as
    /// `Scenarios/scenario.schema.json` names them (`InputReading` holds the two equal). An
    /// object that has fields here is closed: any other key in it is refused, where the decoder
    /// ignored it, so that a typo (`"cancle"` in the mix, `"maxUpcomingBooking"` in the policy)
    /// is not a run without that setting. An object without fields here (`expectations.counts`,
    /// `provenance`) takes any key.
    static let fieldPaths: Set<String> = [
        "clock.operationsPerStep", "clock.start", "clock.stepSeconds", "expectations.counts",
        "expectations.invariants", "overrides[].date", "overrides[].hours", "overrides[].socket",
        "overrides[].station", "policy.cancellationCutoffSeconds", "policy.earlyCheckInSeconds",
        "policy.holdSeconds", "policy.lastDate", "policy.maxHoldsPerUser", "policy.maxUpcomingBookings",
        "policy.minimumNoticeSeconds", "policy.noShowGraceSeconds", "policy.noShowLimit", "policy.noShowLimit.days",
        "policy.noShowLimit.limit", "policy.noShowLimit.noShows", "policy.rescheduleCutoffSeconds",
        "policy.rollingDays", "policy.userLimits", "policy.userLimits[].limit", "policy.userLimits[].user",
        "stationEvents[].atOperation", "stationEvents[].faultHorizonHours", "stationEvents[].socket",
        "stationEvents[].station", "stationEvents[].status", "stations[].city", "stations[].coordinate",
        "stations[].coordinate.latitude", "stations[].coordinate.longitude", "stations[].facilities",
        "stations[].id", "stations[].name", "stations[].openingHours", "stations[].sockets",
        "stations[].sockets[].accessCode", "stations[].sockets[].connector", "stations[].sockets[].id",
        "stations[].sockets[].ocpp", "stations[].sockets[].ocpp.connectorId", "stations[].sockets[].ocpp.evseId",
        "stations[].sockets[].openingHours", "stations[].sockets[].powerKW", "stations[].timeZone",
        "steps[].accessCode", "steps[].at", "steps[].booking", "steps[].connector", "steps[].date", "steps[].expect",
        "steps[].expectDisplaced", "steps[].hour", "steps[].hours", "steps[].label", "steps[].leftAt",
        "steps[].leftAt.latitude", "steps[].leftAt.longitude", "steps[].minimumPowerKW", "steps[].note",
        "steps[].onBookings", "steps[].op", "steps[].reminderSeconds", "steps[].requestID", "steps[].socket",
        "steps[].station", "steps[].user", "timeline[].atOperation", "timeline[].date", "timeline[].hours",
        "timeline[].onBookings", "timeline[].socket", "timeline[].station", "users.count", "users.firstID",
        "workload.concurrency", "workload.dates", "workload.dates.days", "workload.dates.from", "workload.hotness",
        "workload.hotness.share", "workload.hotness.slots", "workload.hours", "workload.leftWithinKm",
        "workload.mix", "workload.mix.anySocket", "workload.mix.availability", "workload.mix.cancel",
        "workload.mix.checkIn", "workload.mix.checkOut", "workload.mix.confirm", "workload.mix.hold",
        "workload.mix.query", "workload.mix.releaseHold", "workload.mix.reschedule", "workload.mix.reserve",
        "workload.mix.retry", "workload.operations",
    ]
    /// The objects whose keys are all in ``fieldPaths``.
    static let closedObjects = Set(fieldPaths.map(parent))

    /// The path of the object that holds the field at `path` (`steps[]` for `steps[].date`).
    static func parent(_ path: String) -> String {
        guard let dot = path.lastIndex(of: ".") else { return "" }
        return String(path[..<dot])
    }

    /// Fields that hold a `UInt64`.
    static let unsignedFields: Set<String> = ["seed", "users.firstID", "steps[].user", "policy.userLimits[].user"]

    private enum Frame {
        case object(keys: Set<String>, key: String?)
        case array(index: Int)
    }

    /// What the scan saw of the top level, so the decoder's pre-checks need no parsed tree.
    struct TopLevel {
        /// The document is an object (its first value opens one).
        var isObject = false
        /// Its keys, in order.
        var keys: [String] = []
        /// The text of the top-level `seed` and `version` numbers, if they are numbers.
        var seed: String?
        var version: String?
        /// Where the scan stopped before the end of the text, on a byte it does not expect
        /// there, and the path it was reading; nil when it read the whole text.
        var unread: (offset: Int, path: String)?
    }

    /// Scans `data`; the first problem found is thrown. A text that is not UTF-8 is refused
    /// where it stops being UTF-8 (``NotUTF8``): the decoder reads UTF-16 and UTF-32, and this
    /// scan cannot. A UTF-8 byte order mark is skipped, as the decoder skips it. A text the scan
    /// stopped in that JSON readers read is refused (``checkFullyScanned(_:_:file:)``).
    /// - Returns: what the top level holds.
    @discardableResult
    static func check(_ data: Data, file: String) throws(ScenarioError) -> TopLevel {
        if let notUTF8 = NotUTF8(data) {
            throw ScenarioError(file: file, path: "", value: notUTF8.description, expected: "JSON text in UTF-8")
        }
        let result: Result<TopLevel, ScenarioError> = data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self), file: file)
            scanner.i = ByteOrderMark.length(in: scanner.bytes)
            if let problem = scanner.run() { return .failure(problem) }
            scanner.skipSpace()
            if scanner.malformed || !scanner.stack.isEmpty || scanner.i < scanner.bytes.count {
                scanner.top.unread = (scanner.i, scanner.path())
            }
            return .success(scanner.top)
        }
        let top = try result.get()
        try checkFullyScanned(data, top, file: file)
        return top
    }

    /// Refuses a text the scan stopped in (``TopLevel/unread``) that JSON readers read all the
    /// same: its checks were skipped. A text they refuse too is left to them, as they say where.
    static func checkFullyScanned(_ data: Data, _ top: TopLevel, file: String) throws(ScenarioError) {
        guard let (offset, path) = top.unread,
            (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
        else { return }
        let byte = offset < data.count ? data[data.startIndex + offset] : nil
        let found = byte.map { "byte 0x\(String($0, radix: 16, uppercase: true)) at offset \(offset)" }
        throw ScenarioError(
            file: file, path: path, value: found ?? "the end of the text",
            expected: "JSON text this scan reads to its end")
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let file: String
        var i = 0
        var stack: [Frame] = []
        /// Set when the text is not JSON: the decoder then says where.
        var malformed = false
        /// Per open array (by depth): the hours seen, for lists of hours.
        var hoursSeen: [Int: UInt32] = [:]
        var top = TopLevel()

        /// Refuses an hour given twice in a list of hours (the decoder would keep one).
        mutating func repeatedHour(_ text: String) -> ScenarioError? {
            guard case .array = stack.last, JSONScan.hourListPaths.contains(path(generic: true)),
                let hour = Int(text), (0...23).contains(hour)
            else { return nil }
            let seen = hoursSeen[stack.count] ?? 0
            if seen & (1 << UInt32(hour)) != 0 {
                return ScenarioError(
                    file: file, path: path(), value: "hour \(hour) a second time", expected: "each hour once")
            }
            hoursSeen[stack.count] = seen | (1 << UInt32(hour))
            return nil
        }

        init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
            self.bytes = bytes
            self.file = file
        }

        /// The JSON path of the value being read (array indices as `[i]`).
        func path(generic: Bool = false) -> String {
            var text = ""
            for frame in stack {
                switch frame {
                case .object(_, let key?): text += text.isEmpty ? key : "." + key
                case .object(_, nil): break
                case .array(let index): text += generic ? "[]" : "[\(index)]"
                }
            }
            return text
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            }
        }

        /// Reads a string at `i` (at its opening quote) and returns its value, or `nil` if malformed.
        mutating func string(decode: Bool) -> String? {
            i += 1
            var scalars = String.UnicodeScalarView()
            var start = i
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x22 {
                    if decode {
                        scalars.append(contentsOf: String(decoding: bytes[start..<i], as: UTF8.self).unicodeScalars)
                    }
                    i += 1
                    return decode ? String(scalars) : ""
                }
                if b == 0x5C {
                    if decode {
                        scalars.append(contentsOf: String(decoding: bytes[start..<i], as: UTF8.self).unicodeScalars)
                    }
                    i += 1
                    guard i < bytes.count else { return nil }
                    let e = bytes[i]
                    i += 1
                    if e == 0x75 {
                        guard var unit = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(unit), i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75
                        {
                            i += 2
                            guard let low = hex4() else { return nil }
                            if (0xDC00..<0xE000).contains(low) {
                                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                // A high surrogate without its low half: a replacement character,
                                // then the second escape as itself.
                                if decode { scalars.append("\u{FFFD}") }
                                unit = low
                            }
                        }
                        if decode { scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}") }
                    } else if decode {
                        let map: [UInt8: Unicode.Scalar] = [
                            0x22: "\"", 0x5C: "\\", 0x2F: "/", 0x62: "\u{8}", 0x66: "\u{C}", 0x6E: "\n", 0x72: "\r",
                            0x74: "\t",
                        ]
                        guard let scalar = map[e] else { return nil }
                        scalars.append(scalar)
                    }
                    start = i
                    continue
                }
                i += 1
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Character(Unicode.Scalar(bytes[i])).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
                i += 1
            }
            return value
        }

        /// Reads a number at `i`; refuses an integer out of range for its field.
        mutating func number() -> ScenarioError? {
            let start = i
            var integral = true
            while i < bytes.count, let c = Optional(bytes[i]),
                (0x30...0x39).contains(c) || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x65 || c == 0x45
            {
                if c == 0x2E || c == 0x65 || c == 0x45 { integral = false }
                i += 1
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            let unsigned = JSONScan.unsignedFields.contains(path(generic: true))
            if unsigned, text.hasPrefix("-"), let value = Double(text), value < 0 {
                return ScenarioError(
                    file: file, path: path(), value: text.count > 40 ? String(text.prefix(37)) + "..." : text,
                    expected: "an integer 0...18446744073709551615")
            }
            guard integral else { return fraction(text) }
            if Int64(text) != nil { return nil }
            if unsigned, UInt64(text) != nil { return nil }
            return ScenarioError(
                file: file, path: path(), value: text.count > 40 ? String(text.prefix(37)) + "..." : text,
                expected: unsigned
                    ? "an integer 0...18446744073709551615" : "an integer -9223372036854775808...9223372036854775807")
        }

        /// Refuses a number with a fraction (`2.5`) where an integer belongs, with its path: the
        /// decoder would say only that the document is not valid. `10.0` and `1e1` are integers,
        /// as JSON Schema says.
        func fraction(_ text: String) -> ScenarioError? {
            if JSONScan.decimalPaths.contains(path(generic: true)) { return nil }
            // Malformed text is left to the decoder.
            guard let value = Double(text) else { return nil }
            if value == value.rounded(), value.magnitude < 0x1p63 { return nil }
            return ScenarioError(
                file: file, path: path(), value: text.count > 40 ? String(text.prefix(37)) + "..." : text,
                expected: value.isFinite && value == value.rounded()
                    ? "an integer -9223372036854775808...9223372036854775807" : "an integer")
        }

        /// Scans the document; the first problem found, or `nil`.
        mutating func run() -> ScenarioError? {
            while true {
                skipSpace()
                guard i < bytes.count else { return nil }
                // A value is expected here (or the end of a container).
                switch bytes[i] {
                case 0x7B:  // {
                    if stack.isEmpty { top.isObject = true }
                    i += 1
                    skipSpace()
                    if i < bytes.count, bytes[i] == 0x7D {
                        i += 1
                    } else {
                        stack.append(.object(keys: [], key: nil))
                        if let problem = nextKey() { return problem }
                        if malformed { return nil }
                        continue
                    }
                case 0x5B:  // [
                    i += 1
                    skipSpace()
                    if i < bytes.count, bytes[i] == 0x5D {
                        i += 1
                    } else {
                        stack.append(.array(index: 0))
                        hoursSeen[stack.count] = 0
                        continue
                    }
                case 0x22:
                    let isDate = JSONScan.datePaths.contains(path(generic: true))
                    guard let text = string(decode: isDate) else { return nil }
                    if isDate, !JSONScan.isDate(text) {
                        return ScenarioError(
                            file: file, path: path(), value: text.debugDescription, expected: "a date YYYY-MM-DD")
                    }
                case 0x2D, 0x30...0x39:
                    let start = i
                    if let problem = number() { return problem }
                    if stack.count == 1, case .object(_, let key?) = stack.last, key == "seed" || key == "version" {
                        let text = String(decoding: bytes[start..<i], as: UTF8.self)
                        if key == "seed" { top.seed = text } else { top.version = text }
                    }
                    if let problem = repeatedHour(String(decoding: bytes[start..<i], as: UTF8.self)) {
                        return problem
                    }
                case 0x74, 0x66, 0x6E:  // true, false, null
                    while i < bytes.count, (0x61...0x7A).contains(bytes[i]) { i += 1 }
                default:
                    return nil
                }
                // After a value: a comma or the end of containers.
                while true {
                    skipSpace()
                    guard let frame = stack.last else { return nil }
                    guard i < bytes.count else { return nil }
                    let c = bytes[i]
                    i += 1
                    if c == 0x2C, let problem = trailingComma() { return problem }
                    switch (frame, c) {
                    case (.array(let index), 0x2C):
                        stack[stack.count - 1] = .array(index: index + 1)
                    case (.object, 0x2C):
                        if let problem = nextKey() { return problem }
                        if malformed { return nil }
                    case (.array, 0x5D), (.object, 0x7D):
                        stack.removeLast()
                        continue
                    default:
                        return nil
                    }
                    break
                }
            }
        }

        /// Refuses a comma (just read) before `]` or `}`: the decoder accepts it, JSON and every
        /// schema validator do not.
        mutating func trailingComma() -> ScenarioError? {
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x5D || bytes[i] == 0x7D else { return nil }
            return ScenarioError(
                file: file, path: path(), value: "a comma before \(Character(Unicode.Scalar(bytes[i])))",
                expected: "valid JSON (no comma after the last element)")
        }

        /// Refuses the key just read when its object is closed (``closedObjects``) and does not
        /// have it, naming the fields it has.
        func unknownField() -> ScenarioError? {
            let field = path(generic: true)
            let object = JSONScan.parent(field)
            guard JSONScan.closedObjects.contains(object), !JSONScan.fieldPaths.contains(field) else { return nil }
            let fields = JSONScan.fieldPaths.filter { JSONScan.parent($0) == object }.map {
                String($0[$0.index(after: $0.lastIndex(of: ".") ?? $0.startIndex)...])
            }
            return ScenarioError(
                file: file, path: path(), value: "an unknown field",
                expected: "one of " + fields.sorted().joined(separator: ", "))
        }

        /// Reads `"key":`, refusing a key seen before in the object; sets ``malformed`` if it is not one.
        mutating func nextKey() -> ScenarioError? {
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x22, case .object(var keys, _) = stack.last,
                let key = string(decode: true)
            else {
                malformed = true
                return nil
            }
            // Drop the stack's reference first, so inserting does not copy the set.
            stack[stack.count - 1] = .object(keys: [], key: key)
            if keys.contains(key) {
                return ScenarioError(
                    file: file, path: path(), value: "the key \(key.debugDescription) a second time",
                    expected: "each key once in an object")
            }
            keys.insert(key)
            stack[stack.count - 1] = .object(keys: keys, key: key)
            if stack.count == 1 { top.keys.append(key) }
            if stack.count > 1, let problem = unknownField() { return problem }
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x3A else {
                malformed = true
                return nil
            }
            i += 1
            return nil
        }
    }
}
