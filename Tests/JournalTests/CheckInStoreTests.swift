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
