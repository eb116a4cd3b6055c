import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output files (history, report, page, shrunk or imported scenario) never destroy a file
/// schedule-sim did not write.
@Suite struct OutputFiles {
    func folder() throws -> String {
        let path = Fixtures.temporaryPath("out")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func problem(_ path: String) -> String? {
        do {
            _ = try OutputFile.check(path, kind: .report)
            return nil
        } catch { return error.problem }
    }

    /// A history naming a folder with files in it: refused before the run, the folder intact.
    @Test func aDirectoryIsRefusedAndKept() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/keep", contents: Data("x".utf8)))
        let p = try Fixtures.prepared(Fixtures.small(operations: 50))
        #expect(throws: SimulationIOError.self) {
            try Simulator.runDeterministic(p, options: RunOptions(historyPath: dir))
        }
        #expect(problem(dir)?.contains("is a directory") == true)
        #expect(FileManager.default.contents(atPath: dir + "/keep") == Data("x".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["keep"])
    }

    @Test func threadsModeRefusesADirectoryBeforeTheRun() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try Fixtures.prepared(Fixtures.small(operations: 50))
        await #expect(throws: SimulationIOError.self) {
            try await Simulator.runThreads(
                p, service: Scheduler(rules: p.rules), threads: 2, options: RunOptions(historyPath: dir))
        }
        var info = stat()
        #expect(lstat(dir, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
    }

    @Test func specialFilesAndLinksToThemAreRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(problem("/dev/null")?.contains("character device") == true)
        #expect(mkfifo(dir + "/fifo", 0o644) == 0)
        #expect(problem(dir + "/fifo")?.contains("fifo") == true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/null", withDestinationPath: "/dev/null")
        #expect(problem(dir + "/null")?.contains("symbolic link to a character device") == true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling", withDestinationPath: dir + "/none")
        #expect(problem(dir + "/dangling")?.contains("symbolic link to nothing") == true)
        #expect(problem(dir + "/missing/h.jsonl")?.contains("does not exist") == true)
        #expect(problem("")?.contains("empty") == true)
        var info = stat()
        #expect(lstat(dir + "/fifo", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    /// A report schedule-sim wrote is replaced (keeping its permissions); a link to one keeps the
    /// link; an empty file (`mktemp`'s) is replaced too.
    @Test func itsOwnFilesAreReplacedThroughLinks() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/report.json"
        let first = try Simulator.runDeterministic(try Fixtures.prepared(Fixtures.small(operations: 20))).json()
        #expect(
            FileManager.default.createFile(atPath: file, contents: first, attributes: [.posixPermissions: 0o600]))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: file)
        let second = try Simulator.runDeterministic(try Fixtures.prepared(Fixtures.small(operations: 30))).json()
        #expect(second != first)
        try OutputFile.check(dir + "/link", kind: .report).write(second)
        #expect(FileManager.default.contents(atPath: file) == second)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link") == file)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(FileManager.default.createFile(atPath: dir + "/empty", contents: Data()))
        try OutputFile.check(dir + "/empty", kind: .scenario).write(Data("{}".utf8))
        try OutputFile.check("\(dir)/fresh.json", kind: .report).write(Data("{}".utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
                "empty", "fresh.json", "link", "report.json",
            ])
    }

    /// What schedule-sim writes as each kind, as it writes it.
    func written(_ kind: OutputKind, in dir: String) throws -> Data {
        switch kind {
        case .history:
            let path = dir + "/h.jsonl"
            _ = try Simulator.runDeterministic(
                try Fixtures.prepared(Fixtures.small(operations: 5)), options: RunOptions(historyPath: path))
            return try #require(FileManager.default.contents(atPath: path))
        case .report:
            return try Simulator.runDeterministic(try Fixtures.prepared(Fixtures.small(operations: 5))).json()
        case .page:
            return Data(HTMLText.page(title: "t", summary: "s", style: "", body: "").utf8)
        case .scenario:
            var scenario = Fixtures.small(operations: 5)
            scenario.provenance = Provenance(source: "x.csv", rowsRead: 1, stepsWritten: 0, skipped: [:], notes: [])
            return DundeeImporter.encode(scenario)
        }
    }

    /// Files of the user's, each close to what schedule-sim writes as `kind`.
    func foreign(_ kind: OutputKind) -> [Data] {
        let common = [Data("my notes\n".utf8), Data("{}".utf8), Data([0, 1, 2])]
        switch kind {
        case .history: return common + [Data(#"{"event":"x","user":1}"#.utf8 + [10])]
        case .report: return common + [Data(#"{"verdict":"pass"}"#.utf8)]
        case .page: return common + [Data("<!DOCTYPE html><html><head><title>mine</title></head></html>".utf8)]
        case .scenario:
            // A scenario written by hand: valid, without the provenance an importer adds.
            return common + [DundeeImporter.encode(Fixtures.small(operations: 5))]
        }
    }

    /// Each kind: its own output is recognized (and replaced); a file of the user's, directly or
    /// through a link, is refused, named and kept byte for byte.
    @Test(arguments: [OutputKind.history, .report, .page, .scenario])
    func aFileItDidNotWriteIsRefusedAndKept(kind: OutputKind) throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let own = dir + "/own"
        #expect(FileManager.default.createFile(atPath: own, contents: try written(kind, in: dir)))
        try OutputFile.check(own, kind: kind).write(Data("replaced".utf8))
        #expect(FileManager.default.contents(atPath: own) == Data("replaced".utf8))
        for (n, bytes) in foreign(kind).enumerated() {
            let mine = dir + "/mine-\(n)"
            #expect(FileManager.default.createFile(atPath: mine, contents: bytes))
            try FileManager.default.createSymbolicLink(atPath: mine + ".link", withDestinationPath: mine)
            for path in [mine, mine + ".link"] {
                let error = try #require(throws: SimulationIOError.self) {
                    try OutputFile.check(path, kind: kind).write(Data("lost".utf8))
                }
                #expect(error.path == path && error.problem.contains("not a \(kind.rawValue) schedule-sim wrote"))
            }
            #expect(FileManager.default.contents(atPath: mine) == bytes)
        }
    }

    /// The shrinker's scenario carries the mark of one schedule-sim wrote, keeping an imported
    /// scenario's provenance.
    @Test func aShrunkScenarioIsRecognized() {
        var scenario = Fixtures.small(operations: 5)
        #expect(!OutputKind.scenario.recognizes(DundeeImporter.encode(scenario), whole: true))
        scenario.provenance = Provenance(source: "a.csv", rowsRead: 9, stepsWritten: 0, skipped: [:], notes: [])
        let shrunk = Shrinker.shrink(scenario, file: "a.json") { _ in false }
        #expect(shrunk.provenance?.source == "a.csv" && shrunk.provenance?.rowsRead == 9)
        #expect(shrunk.provenance?.notes.last?.contains("run --shrink") == true)
        #expect(OutputKind.scenario.recognizes(DundeeImporter.encode(shrunk), whole: true))
        #expect(!OutputKind.scenario.recognizes(DundeeImporter.encode(shrunk).dropLast(3), whole: false))
    }

    @Test func twoOutputsOrAnOutputOverTheInputAreRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/scenario.json"
        #expect(FileManager.default.createFile(atPath: input, contents: Data()))
        let a = try OutputFile.check(dir + "/a", kind: .report)
        let sameA = try OutputFile.check(dir + "/./a", kind: .report)
        #expect(throws: SimulationIOError.self) { try OutputFile.checkDistinct([a, sameA], inputs: []) }
        #expect(throws: SimulationIOError.self) {
            try OutputFile.checkDistinct(
                [
                    a,
                    try OutputFile.check(
                        dir + "/../" + (dir as NSString).lastPathComponent + "/scenario.json", kind: .report),
                ],
                inputs: [input])
        }
        try OutputFile.checkDistinct([a, try OutputFile.check(dir + "/b", kind: .report)], inputs: [input])
    }

    /// A new file named through a link to its folder is the same output as when named directly
    /// (the second commit was renamed over the first); an output in a journal store's directory
    /// is refused (a history named like a journal replaced it).
    @Test func linkedFoldersAndStoreFoldersAreSeen() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
        let direct = try OutputFile.check(dir + "/real/o.json", kind: .report)
        let linked = try OutputFile.check(dir + "/link/o.json", kind: .report)
        #expect(throws: SimulationIOError.self) { try OutputFile.checkDistinct([direct, linked], inputs: []) }
        try OutputFile.checkDistinct([direct, try OutputFile.check(dir + "/link/p.json", kind: .report)], inputs: [])
        let journal = try OutputFile.check(dir + "/link/journal-0000000000000000.log", kind: .history)
        let error = try #require(throws: SimulationIOError.self) {
            try OutputFile.checkDistinct([journal], inputs: [], ownedFolders: [dir + "/real"])
        }
        #expect(error.path == dir + "/link/journal-0000000000000000.log", "\(error)")
        try OutputFile.checkDistinct([direct], inputs: [], ownedFolders: [dir + "/link/nothing"])
    }

    /// An interrupt removes the partial files of the writes under way.
    @Test func partialFilesAreRemovedOnInterrupt() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try HistoryWriter(path: dir + "/h.jsonl")
        writer.write(HistoryLine(op: "reserve", user: 1))
        let partials = PartialFiles.shared.current.filter { $0.hasPrefix(dir) }
        #expect(partials.count == 1)
        #expect(partials.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        PartialFiles.shared.removeAll { $0.hasPrefix(dir) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}

/// Every history line is one JSON object, whatever the ids hold, and reads back as written.
@Suite struct HistoryLines {
    static let hostile = "q\"u\\oé"

    func scenario() -> Scenario {
        var s = Fixtures.small(operations: 100)
        s.stations[0].id = StationID(Self.hostile)
        s.stations[0].sockets[0].id = SocketID("s\"1")
        s.steps = [
            Step(
                op: .reserve, user: 1, station: StationID(Self.hostile), socket: SocketID("s\"1"),
                date: Fixtures.date("2018-06-07"), hour: 9, requestID: RequestID(Self.hostile))
        ]
        return s
    }

    /// Control characters too: one line each, decoded to the same value.
    @Test func anyTextEncodesToOneLine() throws {
        var line = HistoryLine(op: "reserve", user: 7)
        line.requestID = "a\"b\\c\td\ne\u{0}f\u{2028}"
        line.slot = "s\n1/2 2018-06-07 09:00"
        line.detail = "\r"
        #expect(!line.text.contains("\n"))
        #expect(try JSONDecoder().decode(HistoryLine.self, from: Data(line.text.utf8)) == line)
    }

    func lines(_ path: String) throws -> [HistoryLine] {
        let data = try #require(FileManager.default.contents(atPath: path))
        return try data.split(separator: 10).map { try JSONDecoder().decode(HistoryLine.self, from: Data($0)) }
    }

    @Test func deterministicHistoryIsValidJSONLines() throws {
        let path = Fixtures.temporaryPath("hostile.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = try Fixtures.prepared(scenario())
        _ = try Simulator.runDeterministic(p, options: RunOptions(historyPath: path))
        let read = try lines(path)
        #expect(read.count == 101)
        #expect(read.first?.slot?.hasPrefix(Self.hostile + "/s\"1") == true)
        #expect(read.first?.detail == "requestID " + Self.hostile)
        #expect(read.map(\.seq) == (0...100).map { $0 })
    }

    @Test func threadsHistoryReadsBackAsWritten() async throws {
        let path = Fixtures.temporaryPath("hostile-threads.jsonl")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = try Fixtures.prepared(scenario())
        _ = try await Simulator.runThreads(
            p, service: Scheduler(rules: p.rules), threads: 2, options: RunOptions(historyPath: path))
        let read = try lines(path)
        #expect(read.contains { $0.requestID == Self.hostile })
        let ops = try Simulator.readTimedHistory(path: path, p)
        #expect(ops.count * 2 == read.count)
        // The checks keep a request id only for a repeat (I12); the line above carried it whole.
        #expect(ops.first?.kind == .reserve && ops.first?.requestID == nil)
    }
}
