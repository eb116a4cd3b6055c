import SlotScheduler
import SlotSchedulerJournal
import SlotSimulation

// The child process of the journal's SIGKILL test (Tests/JournalTests/KillTests.swift): opens a
// journal store and books and cancels from several tasks, printing one line per step to stdout,
// until it is killed. Lines: `invoke REQUEST USER`, `ok REQUEST BOOKING STATION SOCKET DAY HOUR`,
// `refused REQUEST`, `cancelled BOOKING`, `done`. Each is one write(2) of under PIPE_BUF bytes, so
// a kill leaves only whole lines. The stations and policy are the tests' JournalFixture.
//
// Usage: journal-crash-child DIR SEED TASKS OPERATIONS TAG
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    let bytes = Array(("journal-crash-child: " + message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(70)
}

let args = CommandLine.arguments
guard args.count == 6, let seed = UInt64(args[2]), let taskCount = Int(args[3]), let operations = Int(args[4])
else { fail("usage: journal-crash-child DIR SEED TASKS OPERATIONS TAG") }
let directory = args[1]
let tag = args[5]

let stations = (0..<3).map { i in
    Station(
        id: StationID("S\(i)"), name: "Station \(i)", city: "London", timeZone: "Europe/London",
        sockets: [Socket(id: "1", connector: .type2, powerKW: 22), Socket(id: "2", connector: .ccs, powerKW: 50)])
}
let rules: Rules
let firstDay: LocalDate
do {
    rules = try Rules(catalog: try Catalog(stations), policy: Policy(maxUpcomingBookings: 3))
    firstDay = try LocalDate(year: 2026, month: 6, day: 2)
} catch { fail("\(error)") }
let now = Instant(secondsSinceEpoch: Int64(firstDay.dayNumber - 1) * 86_400)

let store: JournalStore
do { store = try JournalStore(directory: directory, rules: rules, shards: 4) } catch { fail("\(error)") }

await withTaskGroup(of: Void.self) { tasks in
    for t in 0..<taskCount {
        tasks.addTask {
            var rng = SplitMix64(seed: seed &+ UInt64(t) &* 0x9E37_79B9)
            var mine: [Booking] = []
            for i in 0..<operations {
                do {
                    if t == 0, i == operations / 2 {
                        try await store.checkpoint()
                    } else if !mine.isEmpty, rng.chance(0.2) {
                        let b = mine.remove(at: rng.below(mine.count))
                        _ = try await store.cancel(b.id, by: b.user, at: now)
                        say("cancelled \(b.id)")
                    } else {
                        let slot = Slot(
                            station: StationID("S\(rng.below(3))"), socket: SocketID("\(1 + rng.below(2))"),
                            date: LocalDate(dayNumber: firstDay.dayNumber + Int32(rng.below(10))), hour: rng.below(24))
                        let user = UserID(UInt64(rng.below(300)))
                        let request = "k\(tag)-\(t)-\(i)"
                        say("invoke \(request) \(user)")
                        let b = try await store.reserve(
                            ReservationRequest(slot: slot, user: user, requestID: RequestID(request)), at: now)
                        say("ok \(request) \(b.id) \(slot.station) \(slot.socket) \(slot.date.dayNumber) \(slot.hour)")
                        mine.append(b)
                    }
                } catch let rejection as Rejection {
                    if let id = rejection.requestID { say("refused \(id)") }
                } catch { fail("\(error)") }
            }
        }
    }
}
await store.close()
say("done")
