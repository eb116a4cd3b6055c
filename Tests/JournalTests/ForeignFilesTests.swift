import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerJournal

/// A store opened on a directory that already holds someone else's files must leave them alone.
@Suite("Journal store: files it did not write")
struct ForeignFilesTests {
    @Test("opening a directory with a user's .tmp and .snap files keeps them, byte for byte")
    func userFilesSurviveOpen() async throws {
        let dir = JournalFixture.temporaryDirectory("foreign")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let names = ["draft.tmp", "snapshot-notes.tmp", "snapshot-1.tmp", "old.snap"]
        for name in names {
            try Data("user data \(name)\n".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules)
        await store.close()
        for name in names {
            let kept = try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)
            #expect(kept == "user data \(name)\n", "\(name) was removed or changed")
        }
    }
}
