#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import Logging
import Metrics
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database the suite runs against, from `SLOTSCHEDULER_DATABASE_URL`.
enum TestDatabase {
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment[PostgresConfiguration.environmentVariable]
        return value?.isEmpty == false ? value : nil
    }()
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let restartCommand: String? = {
        let value = ProcessInfo.processInfo.environment["SLOTSCHEDULER_PG_RESTART_CMD"]
        return value?.isEmpty == false ? value : nil
    }()
    static let skipMessage =
        "SLOTSCHEDULER_DATABASE_URL is not set: skipping the PostgreSQL tests "
        + "(run them with Scripts/with-postgres.sh swift test --filter PostgresTests)"

    /// A fresh schema name, so tests never see each other's rows.
    static func freshSchema(_ tag: String) -> String {
        "t_\(tag)_\(UInt32.random(in: 0...UInt32.max))"
    }

    static func configuration(schema: String) throws -> PostgresConfiguration {
        guard let url else { throw PostgresStoreError(.missingConfiguration, operation: "test", message: skipMessage) }
        return try PostgresConfiguration(url: url, schema: schema)
    }

    /// A store on `schema`, which it migrates to the last of `migrations` (the upgrade tests
    /// stop at an earlier version).
    static func store(
        schema: String, stations: [Station] = Fixture.stations, policy: Policy = Fixture.policy,
        migrations: [Schema.Migration] = Schema.migrations, logger: Logger? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) async throws -> PostgresBookingService {
        try await PostgresBookingService(
            configuration: try configuration(schema: schema), stations: stations, policy: policy,
            migrations: migrations, logger: logger, metricsFactory: metricsFactory)
    }

    /// Opens `count` stores on one schema, one after another (the first migrates it), each with
    /// its own connection pool, as `count` backend processes would have. If one fails to open,
    /// the ones already open are shut down.
    static func openInstances(
        _ count: Int, schema: String, stations: [Station] = Fixture.stations, policy: Policy = Fixture.policy
    ) async throws -> [PostgresBookingService] {
        var stores: [PostgresBookingService] = []
        do {
            for _ in 0..<count { stores.append(try await store(schema: schema, stations: stations, policy: policy)) }
        } catch {
            for store in stores { await store.shutdown() }
            throw error
        }
        return stores
    }

    /// Runs a shell command (a connection kill, the server restart) and returns its exit status.
    ///
    /// Not with Foundation's `Process`: on Linux it notices a child's exit through a socket the
    /// child inherits, and the server that `pg_ctl restart` starts inherits it too and keeps it
    /// open, so the exit is never reported (the `sh` stays a zombie) and the test waits forever.
    /// Here `posix_spawn` and a blocking `waitpid` on a thread of its own (not the concurrency
    /// pool) see the `sh` exit whatever its children do. Commands should bound themselves
    /// (`timeout N ...`).
    ///
    /// The `sh` gets stdin, stdout and stderr only. The tests of every target run in this one
    /// process, and a descriptor opened without `O_CLOEXEC` by another test (the write end of the
    /// kill tests' `Pipe`, or the socket through which `Process` sees their child exit) would
    /// otherwise pass to the `sh` and to the server `pg_ctl restart` starts, which keeps it for
    /// the rest of the run: the kill test would wait forever for its pipe's end of file.
    static func shell(_ command: String) async throws -> Int32 {
        let words: [String] = ["/bin/sh", "-c", command]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var spawned: pid_t = 0
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let closing = closeAllButStandard(&actions)
        guard closing == 0 else { throw ShellError(code: closing) }
        let result = posix_spawn(&spawned, "/bin/sh", &actions, nil, &arguments, environ)
        #else
        let result = posix_spawn(&spawned, "/bin/sh", nil, nil, &arguments, environ)
        #endif
        guard result == 0 else { throw ShellError(code: result) }
        let pid = spawned
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS; a signal gives 128 + its number, as in the shell.
                continuation.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
            }
        }
    }

    struct ShellError: Error {
        var code: Int32
    }

    #if canImport(Glibc)
    /// Adds closing every descriptor from 3 up: glibc's `posix_spawn_file_actions_addclosefrom_np`
    /// (2.34 on; Swift's Glibc module does not declare it, so it is looked up by name), or else,
    /// as Foundation's `Process` does, a close of each descriptor open now. Returns 0 or an errno.
    static func closeAllButStandard(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Int32 {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            return unsafeBitCast(symbol, to: CloseFrom.self)(actions, 3)
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            let result = posix_spawn_file_actions_addclose(actions, fd)
            if result != 0 { return result }
        }
        return 0
    }
    #endif
}

enum Fixture {
    static let london = "Europe/London"
    static let stations: [Station] = [
        Station(
            id: "north", name: "North", city: "Leeds", timeZone: london,
            sockets: [
                Socket(id: "1", connector: .ccs, powerKW: 150),
                Socket(id: "2", connector: .type2, powerKW: 22),
                Socket(id: "night", connector: .type2, powerKW: 11, openingHours: HourSet(0..<6)),
            ], openingHours: HourSet(6..<22)),
        Station(
            id: "south", name: "South", city: "Brighton", timeZone: london,
            sockets: [Socket(id: "A", connector: .ccs, powerKW: 50), Socket(id: "B", connector: .chademo, powerKW: 50)]),
    ]
    static let policy = Policy(
        maxUpcomingBookings: 3, horizon: .rollingDays(30), minimumNotice: .seconds(3_600),
        cancellationCutoff: .seconds(7_200), userLimits: [.init(user: 99, limit: 1)])

    static func date(_ text: String) -> LocalDate {
        (try? LocalDate(parsing: text)) ?? LocalDate(dayNumber: 0)
    }
    /// 2030-03-01 08:00 UTC (08:00 in London).
    static let now = Instant.utc(date("2030-03-01"), hour: 8)
    static let day = date("2030-03-02")

    static func slot(_ station: StationID = "north", _ socket: SocketID = "1", _ date: LocalDate = day, hour: Int)
        -> Slot
    {
        Slot(station: station, socket: socket, date: date, hour: hour)
    }
}

/// A small deterministic generator (SplitMix64) for command sequences.
struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Checks I1 (no two active bookings share a slot) and I2 (nobody holds more upcoming bookings
/// than their limit at `now`) on a final state; returns the violations.
func invariantViolations(_ bookings: [Booking], rules: Rules, at now: Instant) -> [String] {
    var problems: [String] = []
    var bySlot: [Slot: BookingID] = [:]
    var upcoming: [UserID: Int] = [:]
    for booking in bookings where booking.status == .active {
        if let other = bySlot.updateValue(booking.id, forKey: booking.slot) {
            problems.append("I1: bookings \(other) and \(booking.id) both hold \(booking.slot)")
        }
        if booking.isUpcoming(at: now) { upcoming[booking.user, default: 0] += 1 }
    }
    for (user, count) in upcoming where count > rules.limit(for: user) {
        problems.append("I2: user \(user) holds \(count) upcoming bookings, limit \(rules.limit(for: user))")
    }
    return problems
}

/// The refusal `body` ends in, recording an issue when it is accepted or fails otherwise.
func refusal(_ body: () async throws -> some Any) async -> Rejection? {
    do {
        _ = try await body()
        Issue.record("accepted, expected a refusal")
        return nil
    } catch let rejection as Rejection { return rejection } catch {
        Issue.record("not a refusal: \(error)")
        return nil
    }
}

#endif
