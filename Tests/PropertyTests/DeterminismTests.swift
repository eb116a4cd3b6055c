import Foundation
import SlotScheduler
import SlotSimulation
import Testing

/// I7: a fixed command sequence gives the same results, state and journal, byte for byte, in any
/// process. The bytes are committed in `Golden/`; hashing is seeded per process, so any
/// `Set`/`Dictionary` order leaking into a result or the journal changes them.
///
/// Regenerate after an intended format change with `UPDATE_GOLDEN=1 swift test --filter I7_`.
@Suite struct DeterminismTests {
    /// A fixed world around the spring-forward date, with every kind of command.
    static let world = WorldSpec(
        sockets0: 2, sockets1: 2, openFrom: 6, limit: 2, horizonKind: 2, horizonDays: 2, noticeHalfHours: 1,
        cutoffHalfHours: 2, season: 0, startHalfHours: 0)

    static let commands: [RawCommand] = {
        var list: [RawCommand] = []
        // (kind, station, socket, day, hour, user, request, extra)
        let rows: [[Int]] = [
            [0, 0, 0, 1, 9, 0, 0, 0], [0, 0, 0, 1, 9, 1, 0, 0], [0, 0, 1, 1, 1, 1, 0, 0],
            [0, 1, 0, 2, 10, 1, 2, 0], [45, 0, 0, 0, 0, 0, 0, 0], [50, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 0, 1, 10, 0, 3, 0], [0, 0, 0, 1, 11, 0, 0, 0], [40, 0, 1, 2, 12, 2, 0, 3],
            [40, 0, 1, 2, 13, 2, 0, 0], [55, 0, 0, 0, 0, 1, 0, 0], [55, 0, 0, 0, 0, 0, 0, 1],
            [72, 0, 1, 1, 0, 0, 0, 0], [72, 1, 0, 2, 0, 0, 1, 0], [72, 1, 0, 2, 0, 0, 0, 0],
            [0, 0, 0, 1, 10, 0, 0, 0], [72, 0, 1, 1, 0, 0, 0, 1], [0, 0, 0, 1, 10, 0, 0, 0],
            [85, 0, 0, 0, 0, 0, 0, 7], [0, 0, 1, 3, 14, 3, 0, 0], [0, 2, 0, 1, 9, 0, 0, 0],
            [0, 0, 3, 1, 9, 0, 0, 0], [0, 0, 0, 1, 24, 0, 0, 0], [55, 0, 1, 0, 0, 3, 0, 0],
            [72, 1, 0, 2, 9, 0, 0, 2], [95, 0, 0, 1, 0, 1, 0, 0], [95, 1, 0, 2, 0, 1, 0, 1],
        ]
        for r in rows {
            list.append(
                RawCommand(
                    kind: r[0], station: r[1], socket: r[2], day: r[3], hour: r[4], user: r[5], request: r[6],
                    extra: r[7]))
        }
        return list
    }()

    struct Golden: Codable, Equatable {
        var results: [String]
        var snapshot: Snapshot
        var ledgerJournal: [Event]
        var schedulerJournal: [Event]
    }

    static func produce() -> Golden? {
        guard let rules = world.rules else { return nil }
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 3, userStripes: 4)
        var model = ReferenceModel(stations: world.stations, policy: world.policy)
        var history: [ReservationRequest] = []
        var now = world.startNow
        var results: [String] = []
        for raw in commands {
            let command = Command.resolve(raw, world: world, model: model, history: history, now: now)
            let outcome = Runner.apply(command, to: &ledger, at: now)
            _ = Runner.apply(command, to: &model, at: now)
            switch command {
            case .reserve(let r):
                history.append(r)
                _ = try? scheduler.reserve(r, at: now)
            case .cancel(let id, let user):
                // The scheduler's ids differ from the ledger's; cancel the same booking by slot.
                if let slot = ledger.booking(id)?.slot,
                    let target = scheduler.allBookings.first(where: { $0.slot == slot && $0.status == .active })
                {
                    _ = try? scheduler.cancel(target.id, by: user, at: now)
                }
            case .change(let change, let rule): _ = try? scheduler.changeAvailability(change, onBookings: rule, at: now)
            case .advance(let seconds): now = Instant(secondsSinceEpoch: now.secondsSinceEpoch + seconds)
            case .queryUser, .queryDay: break
            }
            results.append("\(command) -> \(outcome)")
        }
        return Golden(
            results: results, snapshot: ledger.snapshot(), ledgerJournal: ledger.events,
            schedulerJournal: scheduler.events)
    }

    static func encode(_ golden: Golden) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try? encoder.encode(golden)
    }

    static let goldenName = "deterministic-journal"

    @Test func I7_deterministic() throws {
        let golden = try #require(Self.produce(), "the fixed world was refused")
        let bytes = try #require(Self.encode(golden))
        // The same sequence twice in one process gives the same bytes.
        #expect(Self.produce().flatMap(Self.encode) == bytes, "two runs in one process differ")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("Golden").appendingPathComponent("\(Self.goldenName).json")
            try bytes.write(to: url)
            Issue.record("UPDATE_GOLDEN=1: wrote \(url.path); run again without it")
            return
        }
        let url = try #require(
            Bundle.module.url(forResource: Self.goldenName, withExtension: "json", subdirectory: "Golden"),
            "no golden file; run UPDATE_GOLDEN=1 swift test --filter I7_deterministic")
        let committed = try Data(contentsOf: url)
        #expect(committed == bytes, "the journal differs from the committed golden bytes")
        if committed != bytes {
            let text = String(decoding: bytes, as: UTF8.self)
            Issue.record("produced:\n\(text.prefix(4_000))")
        }
    }
}
