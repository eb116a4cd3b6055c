import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerJournal

@Suite("Journal store: check-ins")
struct CheckInStoreTests {
    let rules = JournalFixture.rules
    let now = JournalFixture.now

    @Test("a checkedIn event round-trips through the binary record format with tag 9")
    func binaryRoundTrip() throws {
        let event = Event.checkedIn(BookingID(42), user: 9, at: now)
        var w = ByteWriter()
        EventCoding.encode(event, into: &w)
        #expect(w.bytes.first == EventCoding.checkedInTag && EventCoding.checkedInTag == 9)
        var bytes: [UInt8] = []
        RecordFormat.events(.command, [event], into: &bytes)
        guard case .record(let record) = RecordFormat.read(bytes, at: 0) else {
            Issue.record("record did not read back")
            return
        }
        #expect(try RecordFormat.decodeEvents(record) == [event])
    }

    @Test("check-ins survive a reopen from the journal and from a checkpoint; a repeat writes nothing")
    func reopen() async throws {
        let dir = JournalFixture.temporaryDirectory("checkin")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: rules, shards: 4)
        let a = try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 1), at: now)
        let b = try await store.reserve(ReservationRequest(slot: slot(1, 9), user: 1), at: now)
        let checked = try await store.checkIn(a.id, by: 1, at: a.start)
        #expect(checked.checkedInAt == a.start)
        let records = store.statistics.records
        #expect(try await store.checkIn(a.id, by: 1, at: a.start) == checked)
        #expect(store.statistics.records == records)
        await #expect(throws: Rejection.self) { try await store.checkIn(b.id, by: 2, at: b.start) }
        await store.close()

        let reopened = try JournalStore(directory: dir, rules: rules)
        #expect(try await reopened.booking(a.id) == checked)
        #expect(reopened.statistics.recoveredEvents == 3)  // 2 reserved, 1 checkedIn
        try await reopened.checkpoint()
        let second = try await reopened.checkIn(b.id, by: 1, at: b.start)
        await reopened.close()

        let again = try JournalStore(directory: dir, rules: rules)
        #expect(try await again.booking(a.id) == checked)
        #expect(try await again.booking(b.id) == second)
        let split = try await again.bookings(of: 1, at: Instant(secondsSinceEpoch: b.start.secondsSinceEpoch + 3_600))
        #expect(split.fulfilled.map(\.id).sorted() == [a.id, b.id].sorted())
        await again.close()
    }
}

@Suite("Journal store: check-outs and access codes")
struct CheckOutStoreTests {
    let now = JournalFixture.now

    /// The fixture's stations with socket 1 of S0 coded.
    static let rules: Rules = {
        var stations = JournalFixture.stations
        stations[0].sockets[0].accessCode = "QR-S0"
        do { return try Rules(catalog: try Catalog(stations), policy: Policy(maxUpcomingBookings: 1)) } catch {
            preconditionFailure("fixture rules: \(error)")
        }
    }()

    @Test("a checkedOut event round-trips with tag 11, a fulfilled booking with status 3, a socket's code")
    func binaryRoundTrip() throws {
        var booking = Booking(
            id: BookingID(7), slot: slot(0, 9), user: 9, start: now, createdAt: now, status: .fulfilled)
        booking.checkedInAt = now
        let events: [Event] = [
            .checkedOut(BookingID(42), user: 9, at: now), .reserved(booking),
            .catalogChanged(CatalogChange(stations: Self.rules.catalog.stations), at: now),
        ]
        var w = ByteWriter()
        EventCoding.encode(events[0], into: &w)
        #expect(w.bytes.first == EventCoding.checkedOutTag && EventCoding.checkedOutTag == 11)
        var bytes: [UInt8] = []
        RecordFormat.events(.command, events, into: &bytes)
        guard case .record(let record) = RecordFormat.read(bytes, at: 0) else {
            Issue.record("record did not read back")
            return
        }
        var decoded = try RecordFormat.decodeEvents(record)
        #expect(decoded.count == 3)
        if case .reserved(var b) = decoded[1] {
            // A `reserved` record carries no session times: the snapshot's check-in events do.
            b.checkedInAt = now
            decoded[1] = .reserved(b)
        }
        #expect(decoded == events)
    }

    @Test("check-outs and codes survive a reopen from the journal and from a checkpoint")
    func reopen() async throws {
        let dir = JournalFixture.temporaryDirectory("checkout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: Self.rules, shards: 2)
        let a = try await store.reserve(ReservationRequest(slot: slot(0, 9), user: 1), at: now)
        await #expect(throws: Rejection.self) { try await store.checkIn(a.id, by: 1, accessCode: "QR-S1", at: a.start) }
        try await store.checkIn(a.id, by: 1, accessCode: "QR-S0", at: a.start)
        let ended = try await store.checkOut(a.id, by: 1, at: a.start + .seconds(1_200))
        #expect(ended.status == .fulfilled && ended.checkedOutAt == a.start + .seconds(1_200))
        let next = try await store.reserve(
            ReservationRequest(slot: slot(1, 12), user: 1), at: a.start + .seconds(1_300))
        await store.close()

        let reopened = try JournalStore(directory: dir, rules: Self.rules)
        #expect(try await reopened.booking(a.id) == ended)
        try await reopened.checkpoint()
        await reopened.close()

        let again = try JournalStore(directory: dir, rules: Self.rules)
        #expect(try await again.booking(a.id) == ended)
        let split = try await again.bookings(of: 1, at: a.start + .seconds(1_400))
        #expect(split.fulfilled.map(\.id) == [a.id] && split.upcoming.map(\.id) == [next.id])
        await #expect(throws: Rejection.self) { try await again.checkOut(a.id, by: 1, at: a.start + .seconds(1_500)) }
        await again.close()
    }
}
