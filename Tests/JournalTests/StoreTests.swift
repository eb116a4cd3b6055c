import Foundation
import SlotScheduler
import SlotSimulation
import Testing

@testable import SlotSchedulerJournal

@Suite("Journal store")
struct StoreTests {
    let rules = JournalFixture.rules
    let now = JournalFixture.now

    @Test("CRC-32C matches the standard check value")
    func crcCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test("events round-trip through the binary record format")
    func eventsRoundTrip() throws {
        let booking = Booking(
            id: BookingID(42), slot: slot(1, 7), user: 9, start: now + .seconds(3600), createdAt: now,
            requestID: "r-ü", reminderOffsetSeconds: 900, status: .active)
        let events: [Event] = [
            .reserved(booking), .cancelled(BookingID(42), user: 9, at: now),
            .availabilityChanged(
                AvailabilityChange(station: "S2", socket: nil, date: JournalFixture.firstDay, hours: HourSet(8..<12)),
                at: now),
            .availabilityChanged(
                AvailabilityChange(station: "S2", socket: "1", date: JournalFixture.firstDay, hours: nil), at: now),
            .displaced(BookingID(7), user: 3, at: now),
            .rescheduled(
                BookingMove(
                    booking: BookingID(42), user: 9, from: slot(1, 7), to: slot(1, 9), start: now + .seconds(7_200),
                    requestID: "m-1"), at: now),
            .rescheduled(
                BookingMove(booking: BookingID(42), user: 9, from: slot(1, 9), to: slot(1, 7), start: now), at: now),
        ]
        var bytes: [UInt8] = []
        RecordFormat.events(.command, events, into: &bytes)
        guard case .record(let record) = RecordFormat.read(bytes, at: 0) else {
            Issue.record("record did not read back")
            return
        }
        #expect(record.size == bytes.count)
        #expect(try RecordFormat.decodeEvents(record) == events)
    }

    @Test("bookings, cancellations and availability survive a reopen; refusals are the scheduler's")
    func reopen() async throws {
        let dir = JournalFixture.temporaryDirectory("reopen")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 4)
        let a = try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 1, requestID: "a"), at: now)
        let b = try await store.reserve(ReservationRequest(slot: slot(1, 9), user: 1), at: now)
        // An idempotent repeat returns the same booking and journals nothing.
        let records = store.statistics.records
        let repeated = try await store.book(ReservationRequest(slot: slot(0, 9), user: 1, requestID: "a"), at: now)
        #expect(repeated == Reservation(booking: a, isReplay: true))
        #expect(store.statistics.records == records)
        await #expect(throws: Rejection.self) {
            try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 2), at: now)
        }
        do {
            _ = try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 2), at: now)
        } catch let rejection as Rejection {
            #expect(rejection.reason == .slotTaken)
        }
        _ = try await store.cancel(b.id, by: 1, at: now)
        let displaced = try await store.changeAvailability(
            AvailabilityChange(station: "S0", socket: "1", date: JournalFixture.firstDay, hours: HourSet(10..<12)),
            at: now)
        #expect(displaced.map(\.id) == [a.id])
        let before = try await store.allBookingsByID()
        let view = try await store.dayView(of: "S0", on: JournalFixture.firstDay, at: now)
        await store.close()

        let reopened = try JournalStore(directory: dir, rules: rules)
        #expect(try await reopened.allBookingsByID() == before)
        // One booking by id, in its status after the reopen (b was cancelled).
        #expect(try await reopened.booking(b.id)?.status == .cancelled)
        #expect(try await reopened.booking(a.id)?.status == .displaced)
        #expect(try await reopened.booking(BookingID(UInt64.max)) == nil)
        #expect(try await reopened.dayView(of: "S0", on: JournalFixture.firstDay, at: now) == view)
        #expect(reopened.statistics.recoveredEvents == 5)  // 2 reserved, cancelled, changed, displaced
        // The repeat is still recognised after the reopen.
        let replay = try await reopened.book(ReservationRequest(slot: slot(0, 9), user: 1, requestID: "a"), at: now)
        #expect(replay.booking.id == a.id && replay.isReplay)
        let fresh = try await reopened.book(ReservationRequest(slot: slot(2, 9), user: 1, requestID: "b"), at: now)
        #expect(!fresh.isReplay)
        #expect(reopened.statistics.records == 1)
        await reopened.close()
    }

    @Test("a second opener of the directory gets a clear lock error")
    func secondOpenerIsRefused() async throws {
        let dir = JournalFixture.temporaryDirectory("lock")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules)
        #expect {
            _ = try JournalStore(directory: dir, rules: rules)
        } throws: { error in
            (error as? JournalError)?.kind == .locked && "\(error)".contains("LOCK")
        }
        await store.close()
        let again = try JournalStore(directory: dir, rules: rules)
        await again.close()
    }

    /// A child process spawned by another thread (the kill tests do) holds copies of every open
    /// descriptor until it execs. A copy of the lock's descriptor, made here with `dup`, must not
    /// keep the directory locked after the store closes.
    @Test("closing releases the lock even while a copy of its descriptor is open")
    func lockReleasedDespiteACopy() async throws {
        let dir = JournalFixture.temporaryDirectory("lock-copy")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules)
        let lockFile = dir + "/LOCK"
        // By file identity, not by the link's text: a temporary folder reached through a symbolic
        // link (TMPDIR) reads back under its resolved path.
        var lockStat = stat()
        try #require(stat(lockFile, &lockStat) == 0)
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { Int32($0) }
        let original = fds.sorted().first { fd in
            var s = stat()
            return fstat(fd, &s) == 0 && s.st_dev == lockStat.st_dev && s.st_ino == lockStat.st_ino
        }
        let descriptor = try #require(original, "no open descriptor of \(lockFile)")
        let copy = dup(descriptor)
        #expect(copy >= 0)
        defer { close(copy) }
        await store.close()
        let again = try JournalStore(directory: dir, rules: rules)
        await again.close()
    }

    @Test("a checkpoint writes a snapshot, rotates the journal, and reopens to the same state")
    func checkpoint() async throws {
        let dir = JournalFixture.temporaryDirectory("checkpoint")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 3)
        var rng = SplitMix64(seed: 5)
        for i in 0..<40 {
            _ = try? await store.reserve(
                ReservationRequest(
                    slot: JournalFixture.slot(&rng), user: UserID(UInt64(i % 13)), requestID: RequestID("c\(i)")),
                at: now)
            if i == 20 { try await store.checkpoint() }
        }
        try await store.checkpoint()
        _ = try? await store.reserve(ReservationRequest(slot: slot(2, 23), user: 99, requestID: "last"), at: now)
        let before = try await store.allBookingsByID()
        await store.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(names == ["LOCK", FileNames.journal(2), FileNames.snapshot(2)])
        let reopened = try JournalStore(directory: dir, rules: rules)
        #expect(try await reopened.allBookingsByID() == before)
        #expect(reopened.statistics.generation == 2)
        await reopened.close()
    }

    @Test("concurrent callers share syncs with group commit, one sync each without")
    func groupCommitSharesSyncs() async throws {
        for group in [true, false] {
            let disk = SimulatedDisk(syncDelay: .microseconds(300))
            let store = try JournalStore(files: disk, rules: rules, groupCommit: group)
            await withTaskGroup(of: Void.self) { tasks in
                for t in 0..<8 {
                    tasks.addTask {
                        for i in 0..<20 {
                            let s = Slot(
                                station: StationID("S\(t % 3)"), socket: SocketID("\(1 + t % 2)"),
                                date: LocalDate(dayNumber: JournalFixture.firstDay.dayNumber + Int32(i % 3)),
                                hour: (t * 3 + i) % 24)
                            _ = try? await store.reserve(
                                ReservationRequest(slot: s, user: UserID(UInt64(t * 100 + i))), at: JournalFixture.now)
                        }
                    }
                }
            }
            let stats = store.statistics
            #expect(stats.records > 0)
            if group {
                #expect(stats.syncs < stats.records)
            } else {
                #expect(stats.syncs == stats.records)
            }
            await store.close()
        }
    }
}
