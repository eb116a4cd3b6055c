import SlotScheduler
import Testing

@Suite("Reminders")
struct ReminderTests {
    /// Reminders due in a window are listed by time then booking id; the lower bound counts, the upper does not.
    @Test func dueInWindow() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 10))
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 12), user: 1, reminder: .seconds(3_600)), at: now)
        let b = try ledger.reserve(
            Fixture.request(Fixture.slot("LON", "2", day, 11), user: 2, reminder: .zero), at: now)
        let c = try ledger.reserve(Fixture.request(Fixture.slot(day, 14), user: 3, reminder: .seconds(86_400)), at: now)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 4), at: now)
        // a and b both fire at 10:00 UTC (11:00 BST); c fires a day early.
        let ten = Instant.utc(day, hour: 10)
        let due = ledger.remindersDue(in: ten..<(ten + .seconds(1)))
        #expect(due.map(\.booking) == [a.id, b.id])
        let first = try #require(due.first)
        #expect(first.user == 1)
        #expect(first.slot == Fixture.slot(day, 12))
        #expect(first.fireAt == ten)
        #expect(ledger.remindersDue(in: (ten - .seconds(1))..<ten).isEmpty)
        let all = ledger.remindersDue(in: now..<Instant.utc(day, hour: 23))
        #expect(all.map(\.booking) == [c.id, a.id, b.id])
        #expect(all.first?.fireAt == Instant.utc(day.adding(days: -1), hour: 13))
    }

    /// Cancelled and displaced bookings have no reminder any more.
    @Test func cancelledAndDisplacedHaveNoReminder() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 12), user: 1, reminder: .seconds(600)), at: now)
        let b = try ledger.reserve(
            Fixture.request(Fixture.slot("LON", "2", day, 12), user: 2, reminder: .seconds(600)), at: now)
        let c = try ledger.reserve(
            Fixture.request(Fixture.slot("LON", "3", day, 12), user: 3, reminder: .seconds(600)), at: now)
        let window = now..<Instant.utc(day.adding(days: 1), hour: 0)
        #expect(ledger.remindersDue(in: window).map(\.booking) == [a.id, b.id, c.id])
        try ledger.cancel(a.id, by: 1, at: now)
        try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        #expect(ledger.remindersDue(in: window).map(\.booking) == [c.id])
    }

    /// The scheduler lists due reminders across shards in time order.
    @Test func schedulerReminders() throws {
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let ist = try scheduler.reserve(
            Fixture.request(Fixture.slot("IST", "1", day, 12), user: 1, reminder: .seconds(60)), at: now)
        let lon = try scheduler.reserve(
            Fixture.request(Fixture.slot(day, 12), user: 2, reminder: .seconds(60)), at: now)
        let due = scheduler.remindersDue(in: now..<Instant.utc(day.adding(days: 1), hour: 0))
        #expect(due.map(\.booking) == [ist.id, lon.id])  // 09:00 UTC before 11:00 UTC
        #expect(due.map(\.fireAt) == [Instant.utc(day, hour: 8, minute: 59), Instant.utc(day, hour: 10, minute: 59)])
        try scheduler.cancel(ist.id, by: 1, at: now)
        #expect(scheduler.remindersDue(in: now..<Instant.utc(day.adding(days: 1), hour: 0)).map(\.booking) == [lon.id])
    }

    /// A release keeps the reminders of the bookings it keeps, on every face: it drops only the
    /// index entries of what it released (`SlotBook.pruneReminders`).
    @Test func aReleaseKeepsTheRemindersOfWhatItKeeps() throws {
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        let next = day.adding(days: 1)
        let now = try Fixture.earlyNow()
        for user in [UserID(1), UserID(2)] {
            let date = user == 1 ? day : next
            let request = Fixture.request(Fixture.slot(date, 12), user: user, reminder: .seconds(600))
            _ = try ledger.reserve(request, at: now)
            _ = try scheduler.reserve(request, at: now)
        }
        let later = Instant.utc(next, hour: 1)
        try ledger.releaseDays(before: next, at: later)
        try scheduler.releaseDays(before: next, at: later)
        let window = later..<Instant.utc(next.adding(days: 1), hour: 0)
        let fireAt = Instant.utc(next, hour: 10, minute: 50)  // 11:50 BST
        #expect(ledger.remindersDue(in: window).map(\.fireAt) == [fireAt])
        #expect(ledger.remindersDue(in: window).map(\.user) == [2])
        #expect(scheduler.remindersDue(in: window).map(\.fireAt) == [fireAt])
        #expect(scheduler.remindersDue(in: window).map(\.user) == [2])
    }
}
