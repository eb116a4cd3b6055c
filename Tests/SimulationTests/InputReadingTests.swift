import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Input that used to be silently misread, or refused without a path.
@Suite struct InputReading {
    func text() throws -> String {
        var s = Fixtures.small()
        s.steps = [Step(op: .reserve, user: 1, station: "s1", socket: "1", date: Fixtures.date("2018-06-07"), hour: 9)]
        return String(decoding: try Fixtures.encode(s), as: UTF8.self)
    }

    func error(_ json: String) -> ScenarioError? {
        do {
            _ = try Scenario.decode(Data(json.utf8), file: "in.json").prepare(file: "in.json")
            return nil
        } catch { return error }
    }

    @Test func theBaseIsValid() throws {
        #expect(error(try text()) == nil)
    }

    @Test(
        arguments: [
            ("{\"version\":2,", "version"),
            ("{\"version\":1,\"\\u0076ersion\":1,", "version"),
            ("{\"name\":\"x\",", "name"),
        ])
    func duplicateTopLevelKeysAreRefused(prefix: String, path: String) throws {
        let json = try prefix + text().dropFirst()
        let e = error(json)
        #expect(e?.path == path)
        #expect(e?.expected == "each key once in an object")
    }

    @Test func aNestedDuplicateKeyNamesItsPath() throws {
        let json = try text().replacingOccurrences(of: "\"hour\":9", with: "\"hour\":9,\"hour\":10")
        let e = error(json)
        #expect(e?.path == "steps[0].hour")
        #expect(e?.value.contains("\"hour\"") == true)
    }

    /// Text the decoder reads and the pre-scan could not: UTF-16 and UTF-32 (with or without a
    /// byte order mark) were decoded with every pre-scan check skipped, so a key given twice
    /// passed. A UTF-8 byte order mark is skipped and the text after it checked.
    @Test func textInOtherEncodingsIsRefusedAndAByteOrderMarkIsSkipped() throws {
        let twice = try text().replacingOccurrences(of: "\"hour\":9", with: "\"hour\":9,\"hour\":10")
        for encoding: String.Encoding in [.utf16, .utf16LittleEndian, .utf16BigEndian, .utf32, .utf32LittleEndian] {
            for json in [try text(), twice] {
                let data = try #require(json.data(using: encoding))
                let e = #expect(throws: ScenarioError.self) { _ = try Scenario.decode(data, file: "in.json") }
                #expect(e?.expected == "JSON text in UTF-8", "\(encoding)")
            }
        }
        let bom = Data([0xEF, 0xBB, 0xBF])
        _ = try Scenario.decode(bom + Data(try text().utf8), file: "in.json")
        let e = #expect(throws: ScenarioError.self) { _ = try Scenario.decode(bom + Data(twice.utf8), file: "in.json") }
        #expect(e?.path == "steps[0].hour")
        // Any other text the scan stops in and JSON readers read is refused too; one they refuse
        // is left to them.
        var top = JSONScan.TopLevel()
        top.unread = (offset: 1, path: "steps")
        #expect(throws: ScenarioError.self) { try JSONScan.checkFullyScanned(Data("[1]".utf8), top, file: "in.json") }
        try JSONScan.checkFullyScanned(Data("[1".utf8), top, file: "in.json")
    }

    /// A byte that is not UTF-8 (here a Latin-1 `é` in a step's note) is refused where it is,
    /// before the decoder, as the CSV importer and the booking service refuse it (``NotUTF8``).
    /// The text starts with blank lines ended by LF, CR LF and a lone CR: the é is on line 4.
    @Test func aByteThatIsNotUTF8IsRefusedWithItsLine() throws {
        let parts = try text().components(separatedBy: "\"hour\":9")
        try #require(parts.count == 2 && !parts[0].contains("\n"))
        let latin1 =
            Data("\n\r\n\r".utf8) + Data(parts[0].utf8) + Data("\"hour\":9,\"note\":\"caf".utf8) + Data([0xE9])
            + Data("\"".utf8) + Data(parts[1].utf8)
        let e = #expect(throws: ScenarioError.self) { _ = try Scenario.decode(latin1, file: "in.json") }
        #expect(e?.expected == "JSON text in UTF-8")
        let offset = 4 + parts[0].utf8.count + "\"hour\":9,\"note\":\"caf".utf8.count
        #expect(e?.value == "byte 0xE9 on line 4 (offset \(offset)) is not UTF-8")
    }

    /// ``NotUTF8`` at the edges: a NUL first, a sequence cut short at the end (named by its lead
    /// byte), and text that is UTF-8 (a byte order mark, other scripts, empty).
    @Test func notUTF8AtTheEdges() {
        #expect(NotUTF8(Data([0, 0x7B])).map { [Int($0.byte), $0.offset, $0.line] } == [0, 0, 1])
        let cut = Data("a\r\nb\rç".utf8).dropLast()
        #expect(NotUTF8(cut).map { [Int($0.byte), $0.offset, $0.line] } == [0xC3, 5, 3])
        for text in ["\u{FEFF}{}", "İstanbul, Zürich, 東京", ""] { #expect(NotUTF8(Data(text.utf8)) == nil) }
    }

    /// A comma after an object's or an array's last element: the decoder took it, JSON (and the
    /// schema validator CI runs) does not.
    @Test func trailingCommasAreRefused() throws {
        let original = try text()
        let inObject = error(original.dropLast() + ",\n}")
        #expect(inObject?.value == "a comma before }")
        let inArray = error(original.replacingOccurrences(of: "\"hour\":9", with: "\"hour\":9,\"hours\":[1, ]"))
        #expect(inArray?.path == "steps[0].hours[0]")
        #expect(inArray?.value == "a comma before ]")
    }

    @Test(
        arguments: [
            ("\"seed\":7", "\"seed\":18446744073709551616", "seed", "18446744073709551616"),
            ("\"count\":30", "\"count\":9223372036854775808", "users.count", "9223372036854775808"),
            ("\"user\":1", "\"user\":18446744073709551616", "steps[0].user", "18446744073709551616"),
            ("\"count\":30", "\"count\":-99999999999999999999", "users.count", "-99999999999999999999"),
        ])
    func integersOutOfRangeNameFieldAndValue(from: String, to: String, path: String, value: String) throws {
        let original = try text()
        #expect(original.contains(from))
        let e = error(original.replacingOccurrences(of: from, with: to))
        #expect(e?.path == path)
        #expect(e?.value == value)
        #expect(e?.expected.hasPrefix("an integer") == true)
    }

    @Test func oddDatesAndRepeatedHoursAreRefusedWithTheirPath() throws {
        let original = try text()
        #expect(original.contains("\"date\":\"2018-06-07\""))
        let date = error(original.replacingOccurrences(of: "\"date\":\"2018-06-07\"", with: "\"date\":\"2018-+6-+7\""))
        #expect(date?.path == "steps[0].date")
        #expect(date?.expected == "a date YYYY-MM-DD")
        var s = Fixtures.small()
        s.stations[0].sockets[0].openingHours = HourSet(8..<10)
        let json = String(decoding: try Fixtures.encode(s), as: UTF8.self)
        #expect(json.contains("\"openingHours\":[8,9]"))
        let hours = error(json.replacingOccurrences(of: "\"openingHours\":[8,9]", with: "\"openingHours\":[8,9,8]"))
        #expect(hours?.path == "stations[0].sockets[0].openingHours[2]")
        #expect(hours?.expected == "each hour once")
    }

    @Test func theLargestSeedIsAccepted() throws {
        #expect(error(try text().replacingOccurrences(of: "\"seed\":7", with: "\"seed\":18446744073709551615")) == nil)
    }

    @Test func lastDateWithRollingDaysIsRefused() throws {
        var s = Fixtures.small()
        s.policy.lastDate = Fixtures.date("2030-01-01")
        s.policy.rollingDays = 3
        let e = error(String(decoding: try Fixtures.encode(s), as: UTF8.self))
        #expect(e?.path == "policy.rollingDays")
    }

    @Test func whatIsNotARegularFileIsNamed() throws {
        func found(_ path: String) -> String? {
            do {
                _ = try Scenario.load(path: path)
                return nil
            } catch { return error.value }
        }
        let dir = Fixtures.temporaryPath("in")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(found(dir + "/missing.json") == "no such file")
        #expect(found(dir) == "a directory")
        #expect(found("/dev/zero") == "a character device")
        #expect(mkfifo(dir + "/fifo", 0o644) == 0)
        #expect(found(dir + "/fifo") == "a fifo")
        #expect(symlink(dir + "/fifo", dir + "/link") == 0)
        #expect(found(dir + "/link") == "a fifo")
        // A sparse file one byte over the limit: refused after reading at most the limit.
        FileManager.default.createFile(atPath: dir + "/large.json", contents: nil)
        #expect(truncate(dir + "/large.json", off_t(ScenarioLimits.maxFileBytes + 1)) == 0)
        #expect(found(dir + "/large.json") == "more than \(ScenarioLimits.maxFileBytes) bytes")
    }

    /// Every other input (a record, a history, a catalog, a CSV, an adapter, a secret) is read
    /// only from a regular file, at most its limit: `/dev/zero` was read without end and a fifo
    /// blocked its reader.
    @Test func otherInputsAreReadOnlyFromRegularFiles() throws {
        func problem(_ path: String, maxBytes: Int = 1 << 20) -> String? {
            do {
                _ = try InputFile.contents(path, maxBytes: maxBytes)
                return nil
            } catch { return error.problem }
        }
        let dir = Fixtures.temporaryPath("inputs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(problem("/dev/zero")?.contains("a character device") == true)
        #expect(mkfifo(dir + "/fifo", 0o644) == 0)
        #expect(problem(dir + "/fifo")?.contains("a fifo") == true)
        #expect(problem(dir)?.contains("a directory") == true)
        #expect(problem(dir + "/missing")?.contains("No such file") == true)
        try Data(repeating: 65, count: 100).write(to: URL(fileURLWithPath: dir + "/a"))
        #expect(problem(dir + "/a", maxBytes: 99) == "more than 99 bytes")
        #expect(try InputFile.contents(dir + "/a", maxBytes: 100) == Data(repeating: 65, count: 100))
        #expect(throws: SimulationIOError.self) { try LineReader.forEachLine(path: "/dev/zero") { _, _, _ in } }
    }

    /// The fields the scan knows below the top level are the schema's, no more and no fewer.
    @Test func theScanKnowsTheSchemasFields() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scenarios/scenario.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let definitions = schema["$defs"] as? [String: Any] ?? [:]
        var paths: Set<String> = []
        func walk(_ node: Any?, _ path: String, _ depth: Int) {
            guard depth < 16, var node = node as? [String: Any] else { return }
            while let reference = node["$ref"] as? String,
                let target = definitions[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
            {
                node = target
            }
            for combined in ["oneOf", "anyOf", "allOf"] {
                for part in node[combined] as? [Any] ?? [] { walk(part, path, depth + 1) }
            }
            for (key, value) in node["properties"] as? [String: Any] ?? [:] {
                let field = path.isEmpty ? key : path + "." + key
                paths.insert(field)
                walk(value, field, depth + 1)
            }
            walk(node["items"], path + "[]", depth + 1)
        }
        walk(schema, "", 0)
        let nested = paths.filter { $0.contains(".") || $0.contains("[") }
        #expect(nested.subtracting(JSONScan.fieldPaths).sorted() == [], "the schema's, not the scan's")
        #expect(JSONScan.fieldPaths.subtracting(nested).sorted() == [], "the scan's, not the schema's")
    }

    /// Every bundled scenario still reads (the key scan refuses nothing valid).
    @Test func bundledScenariosRead() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scenarios").standardizedFileURL.path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasSuffix(".json") && !$0.hasSuffix("schema.json") && !$0.hasSuffix("report.json")
        }
        #expect(files.count >= 5)
        for file in files {
            #expect(throws: Never.self) { _ = try Scenario.load(path: folder + "/" + file) }
        }
    }

    /// The fast path (scan, then decode straight into structs) and the tree path that explains a
    /// failure read every bundled scenario alike.
    @Test func fastAndExplainingPathsAgree() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scenarios").standardizedFileURL.path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasSuffix(".json") && !$0.hasSuffix("schema.json") && !$0.hasSuffix("report.json")
        }
        for file in files.sorted() {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
            #expect(try Scenario.decode(data, file: file) == Scenario.explainFailure(data, file: file), "\(file)")
        }
    }

    /// What the fast path checks at the top level without a tree, it refuses as the tree path did.
    @Test(arguments: [
        (#"{"version":2}"#, "version"), (#"{"seed":-1}"#, "seed"), (#"{"seed":1.5}"#, "seed"),
        (#"{"nonsense":1}"#, "nonsense"), (#"[1]"#, ""),
    ])
    func topLevelProblemsKeepTheirPath(json: String, path: String) throws {
        let error = #expect(throws: ScenarioError.self) { try Scenario.decode(Data(json.utf8), file: "t.json") }
        #expect(error?.path == path)
    }
}
