import Foundation
import SlotScheduler
import Testing

/// A ``SlotRef`` is an index into the catalog that resolved it. One from a larger catalog (another
/// layout) or a station index the catalog does not have indexed past the end and trapped.
@Suite struct ForeignSlotRefTests {
    /// The last socket of the last station of the six-station fixture, at noon.
    static func foreignRef() throws -> SlotRef {
        let big = try Catalog(Fixture.stations)
        return try big.resolve(Slot(station: "NOW", socket: "1", date: try Fixture.day(), hour: 12))
    }

    static func small() throws -> Rules {
        try Rules(catalog: try Catalog([Fixture.istanbul]), policy: Fixture.policy)
    }

    @Test func ledgerAttemptRefusesAForeignRef() throws {
        let ref = try Self.foreignRef()
        var ledger = Ledger(rules: try Self.small())
        let attempt = ledger.attempt(ref, for: 1, at: try Fixture.earlyNow())
        #expect(attempt.booking == nil)
        #expect(attempt.reason == .unknownStation)
        #expect(ledger.attempt([(ref, 1)], at: try Fixture.earlyNow()).map(\.reason) == [.unknownStation])
        #expect(ledger.status(of: ref, at: try Fixture.earlyNow()) == .nonexistent)
        #expect(ledger.allBookings.isEmpty)
    }

    @Test func schedulerAttemptRefusesAForeignRef() throws {
        let ref = try Self.foreignRef()
        let scheduler = Scheduler(rules: try Self.small())
        let attempt = scheduler.attempt(ref, for: 1, at: try Fixture.earlyNow())
        #expect(attempt.reason == .unknownStation)
        #expect(scheduler.attempt([(ref, 1)][...], at: try Fixture.earlyNow()).map(\.reason) == [.unknownStation])
        #expect(scheduler.allBookings.isEmpty)
    }

    /// Foreign refs mixed into batches, at the first, last and middle places of prefetch windows
    /// (32 attempts), are refused and the others booked as single attempts are, on a ledger and
    /// a one-shard scheduler (whose order is the batch's).
    @Test func batchesRefuseForeignRefsAnywhereInAWindow() throws {
        let foreign = try Self.foreignRef()
        let rules = try Self.small()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let edges: Set = [0, 31, 32, 33, 63, 64, 95, 96, 99]
        let batch = try (0..<100).map { i in
            let ref =
                edges.contains(i) || i % 7 == 3
                ? foreign : try rules.catalog.resolve(Fixture.slot("IST", "1", day.adding(days: i / 24 % 2), i % 24))
            return (ref, UserID(UInt64(i % 5)))
        }
        var single = Ledger(rules: rules)
        let singleScheduler = Scheduler(rules: rules, shards: 1)
        var batched = single
        let batchedScheduler = Scheduler(rules: rules, shards: 1)
        let expected = batch.map { single.attempt($0.0, for: $0.1, at: now) }
        #expect(batch.map { singleScheduler.attempt($0.0, for: $0.1, at: now) } == expected)
        #expect(batched.attempt(batch, at: now) == expected)
        #expect(batchedScheduler.attempt(batch[...], at: now) == expected)
        let refused = expected.indices.filter { expected[$0].reason == .unknownStation }
        #expect(refused == batch.indices.filter { batch[$0].0 == foreign })
        #expect(expected.contains { $0.booking != nil })
        #expect(batched.allBookings == single.allBookings)
        #expect(batchedScheduler.allBookings == single.allBookings)
    }

    @Test func catalogAndRulesAnswerNothingForAForeignRef() throws {
        let ref = try Self.foreignRef()
        let rules = try Self.small()
        #expect(rules.catalog.start(of: ref) == nil)
        #expect(rules.timeCheck(ref, reminderSeconds: nil, at: try Fixture.earlyNow()).reason == .unknownStation)
        let slot = rules.catalog.slot(ref)
        #expect(slot.station.rawValue.isEmpty && slot.socket.rawValue.isEmpty)
        #expect(slot.date == (try Fixture.day()) && slot.hour == 12)
        #expect(refusal { try rules.catalog.resolve(slot) }?.reason == .unknownStation)
        let rejection = rules.rejection(
            .slotTaken, ref: ref, user: 1, requestID: nil, reminderSeconds: nil, start: try Fixture.earlyNow(),
            at: try Fixture.earlyNow())
        #expect(rejection.reason == .unknownStation)
        #expect(!rejection.message(in: .english).isEmpty)
        let utc = LocalDate(dayNumber: Int32(try Fixture.earlyNow().secondsSinceEpoch / 86_400))
        for station in [Int32.min, -1, 1, 99, .max] {
            #expect(rules.catalog.localDate(ofStation: station, at: try Fixture.earlyNow()) == utc)
        }
    }
}
