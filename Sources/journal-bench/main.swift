// Durable reservations per second through the journal store, with N concurrent callers.
// Each caller books distinct free slots one after another (never refused), so every booking is
// one record; with group commit, callers whose records meet in the buffer share a sync.
//
// Usage: journal-bench DIR CALLERS SECONDS group|single
// Prints: `callers N mode M: R reservations/s, S syncs/s, B records per sync`.
import SlotScheduler
import SlotSchedulerJournal
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    print("journal-bench: \(message)")
    exit(64)
}

let args = CommandLine.arguments
guard args.count == 5, let callers = Int(args[2]), callers > 0, let seconds = Double(args[3]),
    ["group", "single"].contains(args[4])
else { fail("usage: journal-bench DIR CALLERS SECONDS group|single") }

// 100 stations of 20 sockets: 2000 sockets × 24 hours a day, never exhausted in a run.
let stations = (0..<100).map { s in
    Station(
        id: StationID("B\(s)"), name: "Bench \(s)", city: "London", timeZone: "Europe/London",
        sockets: (0..<20).map { Socket(id: SocketID("\($0)"), connector: .type2, powerKW: 22) })
}
let rules: Rules
let firstDay: LocalDate
do {
    rules = try Rules(catalog: try Catalog(stations), policy: Policy(maxUpcomingBookings: 100_000))
    firstDay = try LocalDate(year: 2026, month: 6, day: 2)
} catch { fail("\(error)") }
let now = Instant(secondsSinceEpoch: Int64(firstDay.dayNumber - 1) * 86_400)

let store: JournalStore
do { store = try JournalStore(directory: args[1], rules: rules, groupCommit: args[4] == "group") } catch {
    fail("\(error)")
}
let clock = ContinuousClock()
let deadline = clock.now + .milliseconds(Int64(seconds * 1000))
let start = clock.now
let done = Atomic<Int>(0)
await withTaskGroup(of: Void.self) { tasks in
    for c in 0..<callers {
        tasks.addTask {
            var i = c
            while clock.now < deadline {
                let cell = i % (2000 * 24)
                let slot = Slot(
                    station: StationID("B\(cell / 480)"), socket: SocketID("\(cell / 24 % 20)"),
                    date: LocalDate(dayNumber: firstDay.dayNumber + Int32(i / (2000 * 24))), hour: cell % 24)
                do {
                    _ = try await store.reserve(ReservationRequest(slot: slot, user: UserID(UInt64(i))), at: now)
                    done.add(1, ordering: .relaxed)
                } catch { fail("booking \(i): \(error)") }
                i += callers
            }
        }
    }
}
let elapsed = clock.now - start
let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
let stats = store.statistics
await store.close()
let n = done.load(ordering: .relaxed)
print(
    "callers \(callers) mode \(args[4]): \(Int(Double(n) / secs)) reservations/s, \(Int(Double(stats.syncs) / secs)) syncs/s, "
        + "\(stats.syncs > 0 ? Double(stats.records) / Double(stats.syncs) : 0) records per sync")
