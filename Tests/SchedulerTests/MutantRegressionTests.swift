import SlotScheduler
import Testing

/// Boundaries that only the property suites reached before: each test here makes a mutant of
/// `Scripts/mutants/mutants.py` fail in seconds (its `quick` filter, what CI plants).
@Suite("MutantRegressionTests")
struct MutantRegressionTests {
    /// A slot whose hour starts exactly at `now` is still bookable: the past check is
    /// `start < now` (mutant `past-check-lte`), in the ledger and in the scheduler.
    @Test func aSlotStartingNowIsBookable() throws {
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 10)  // 11:00 BST: the start of local hour 11
        var ledger = try Fixture.ledger()
        let booked = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        #expect(booked.start == now)
        let scheduler = try Fixture.scheduler()
        let also = try scheduler.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        #expect(also.start == now)
        // One second later the hour is under way: in the past.
        let later = Instant(secondsSinceEpoch: now.secondsSinceEpoch + 1)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 11), user: 2), at: later) }?
                .reason == .slotInPast)
    }
}
