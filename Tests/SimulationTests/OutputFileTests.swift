import Foundation
import SlotScheduler
import Testing

@testable import SlotSimulation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output files (history, report, shrunk scenario) never destroy anything but a regular file.
@Suite struct OutputFiles {
    func folder() throws -> String {
        let path = Fixtures.temporaryPath("out")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func problem(_ path: String) -> String? {
        do {
            _ = try OutputFile.check(path)
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

    /// A regular file is replaced (keeping its permissions); a link to one keeps the link.
    @Test func regularFilesAreReplacedThroughLinks() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/report.json"
        #expect(
            FileManager.default.createFile(
                atPath: file, contents: Data("old".utf8), attributes: [.posixPermissions: 0o600]))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: file)
        try OutputFile.check(dir + "/link").write(Data("new".utf8))
        #expect(FileManager.default.contents(atPath: file) == Data("new".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link") == file)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try OutputFile.check("\(dir)/fresh.json").write(Data("{}".utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["fresh.json", "link", "report.json"])
    }

    @Test func twoOutputsOrAnOutputOverTheInputAreRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/scenario.json"
        #expect(FileManager.default.createFile(atPath: input, contents: Data("{}".utf8)))
        let a = try OutputFile.check(dir + "/a")
        let sameA = try OutputFile.check(dir + "/./a")
        #expect(throws: SimulationIOError.self) { try OutputFile.checkDistinct([a, sameA], inputs: []) }
        #expect(throws: SimulationIOError.self) {
            try OutputFile.checkDistinct(
                [a, try OutputFile.check(dir + "/../" + (dir as NSString).lastPathComponent + "/scenario.json")],
                inputs: [input])
        }
        try OutputFile.checkDistinct([a, try OutputFile.check(dir + "/b")], inputs: [input])
    }

    /// A new file named through a link to its folder is the same output as when named directly
    /// (the second commit was renamed over the first); an output in a journal store's directory
    /// is refused (a history named like a journal replaced it).
    @Test func linkedFoldersAndStoreFoldersAreSeen() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
        let direct = try OutputFile.check(dir + "/real/o.json")
        let linked = try OutputFile.check(dir + "/link/o.json")
        #expect(throws: SimulationIOError.self) { try OutputFile.checkDistinct([direct, linked], inputs: []) }
        try OutputFile.checkDistinct([direct, try OutputFile.check(dir + "/link/p.json")], inputs: [])
        let journal = try OutputFile.check(dir + "/link/journal-0000000000000000.log")
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
