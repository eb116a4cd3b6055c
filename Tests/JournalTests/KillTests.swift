import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

@Suite("Journal SIGKILL")
struct KillTests {
    /// The child binary, built beside the test bundle.
    static var child: String? {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for dir in [exe, Bundle.main.bundleURL.deletingLastPathComponent(), exe.deletingLastPathComponent()] {
            let path = dir.appendingPathComponent("journal-crash-child").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Reads the child's lines into what clients saw.
    static func parse(_ output: String, into model: inout ClientModel) -> Bool {
        var done = false
        for line in output.split(separator: "\n") {
            let f = line.split(separator: " ").map(String.init)
            switch f.first {
            case "invoke" where f.count == 3:
                model.invoked[RequestID(f[1])] = UInt64(f[2]).map { UserID(rawValue: $0) }
            case "ok" where f.count == 7:
                guard let id = UInt64(f[2]), let day = Int32(f[5]), let hour = Int(f[6]),
                    let user = model.invoked[RequestID(f[1])]
                else { continue }
                let slot = Slot(
                    station: StationID(f[3]), socket: SocketID(f[4]), date: LocalDate(dayNumber: day), hour: hour)
                model.acknowledged[RequestID(f[1])] = Booking(
                    id: BookingID(id), slot: slot, user: user, start: JournalFixture.now,
                    createdAt: JournalFixture.now, requestID: RequestID(f[1]), reminderOffsetSeconds: nil,
                    status: .active)
            case "refused" where f.count == 2: model.refused.insert(RequestID(f[1]))
            case "cancelled" where f.count == 2: if let id = UInt64(f[1]) { model.cancelled.insert(BookingID(id)) }
            case "done": done = true
            default: Issue.record("unexpected line from the child: \(line)")
            }
        }
        return done
    }

    /// Reads the child's output until it has printed `lines` lines (or ended); returns what it read.
    /// Killing after a seeded number of lines, not after a delay, makes every round kill the child
    /// mid-run however fast or slow the machine is.
    static func read(lines: Int, from handle: FileHandle) -> Data {
        var data = Data()
        var seen = 0
        while seen < lines {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            seen += chunk.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            data.append(chunk)
        }
        return data
    }

    @Test("a child booking from 4 tasks, SIGKILLed at 30 seeded moments: every acknowledged booking recovered once")
    func killedChild() async throws {
        guard let child = Self.child else {
            Issue.record("journal-crash-child is not built beside the tests (swift build --build-tests)")
            return
        }
        let dir = JournalFixture.temporaryDirectory("kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix64(seed: 13)
        var model = ClientModel()
        var killed = 0
        for round in 0..<30 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: child)
            // Far more operations than the lines read before the kill: the child is always mid-run.
            process.arguments = [dir, String(rng.next() >> 1), "4", "2000", String(round)]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let delay = 1 + rng.below(250)
            var output = Self.read(lines: delay, from: pipe.fileHandleForReading)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            output.append(pipe.fileHandleForReading.readDataToEndOfFile())
            process.waitUntilExit()
            let text = String(decoding: output, as: UTF8.self)
            _ = Self.parse(text, into: &model)
            let store = try JournalStore(directory: dir, rules: JournalFixture.rules)
            let problems = model.problems(
                in: try await store.allBookingsByID(), rules: JournalFixture.rules, now: JournalFixture.now)
            await store.close()
            #expect(problems.isEmpty, "round \(round) (killed after \(delay) lines): \(problems.prefix(5))")
            if !problems.isEmpty { return }
        }
        #expect(killed >= 15 && model.acknowledged.count >= 100, "killed \(killed), acked \(model.acknowledged.count)")
    }
}
