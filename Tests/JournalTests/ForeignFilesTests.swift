import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerJournal

/// A store opened on a directory that already holds someone else's files must leave them alone.
@Suite("Journal store: files it did not write")
struct ForeignFilesTests {
    static let names = ["draft.tmp", "snapshot-notes.tmp", "snapshot-1.tmp", "old.snap"]

    static func write(_ names: [String], in dir: String) throws {
        for name in names {
            try Data("user data \(name)\n".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
    }

    static func expectKept(_ names: [String], in dir: String) {
        for name in names {
            let kept = try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)
            #expect(kept == "user data \(name)\n", "\(name) was removed or changed")
        }
    }

    @Test("reopening a store whose directory a user added .tmp and .snap files to keeps them")
    func userFilesSurviveOpen() async throws {
        let dir = JournalFixture.temporaryDirectory("foreign")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules)
        await store.close()
        try Self.write(Self.names, in: dir)
        let reopened = try JournalStore(directory: dir, rules: JournalFixture.rules)
        await reopened.close()
        Self.expectKept(Self.names, in: dir)
    }

    @Test(
        "a directory of user files with no journal is refused, naming it, and is left as it was (no journal, no LOCK)")
    func userDirectoryIsRefused() throws {
        let dir = JournalFixture.temporaryDirectory("userdir")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.write(Self.names, in: dir)
        let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect {
            _ = try JournalStore(directory: dir, rules: JournalFixture.rules)
        } throws: { error in
            "\(error)".contains(dir) && "\(error)".contains("not a journal store")
        }
        Self.expectKept(Self.names, in: dir)
        let journals = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.filter { $0.hasPrefix("journal-") }
        #expect(journals == [])
        // Nothing created either: not even the store's LOCK.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before)
    }

    /// A link planted at the name of the next snapshot's temporary file makes the checkpoint fail;
    /// the file it points to is not written (it was truncated and overwritten).
    @Test("a link at the next snapshot's name is not followed")
    func plantedLinkIsNotFollowed() async throws {
        let dir = JournalFixture.temporaryDirectory("planted")
        let victim = JournalFixture.temporaryDirectory("victim") + ".txt"
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: victim)
        }
        try Data("user data\n".utf8).write(to: URL(fileURLWithPath: victim))
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules)
        try FileManager.default.createSymbolicLink(
            atPath: dir + "/" + FileNames.snapshotTemp(1), withDestinationPath: victim)
        await #expect(throws: JournalError.self) { try await store.checkpoint() }
        await store.close()
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "user data\n")
    }
}
