import Foundation
import SlotScheduler
import Testing

extension WireFormatTests {
    /// The `checkedIn` event (version 3), a snapshot carrying a check-in (version 3, the booking's
    /// `checkedInAt`), the user's four lists, and the two check-in refusals in both languages.
    @Test func checkInEventAndSnapshot() throws {
        var ledger = try Ledger(
            stations: [Self.station],
            policy: Policy(
                maxUpcomingBookings: 2, minimumNotice: .seconds(3_600), earlyCheckIn: .seconds(900),
                noShowGrace: .seconds(600), noShowLimit: Policy.NoShowLimit(noShows: 1, days: 30, limit: 1)))
        let booking = try ledger.reserve(ReservationRequest(slot: Self.slot, user: 17), at: Self.now)
        let other = try ledger.reserve(
            ReservationRequest(slot: Slot(station: "IST-1", socket: "A", date: Self.day, hour: 15), user: 17),
            at: Self.now)
        try ledger.checkIn(booking.id, by: 17, at: booking.start + .seconds(-300))
        try check("Events-checkIn", ledger.events)
        try check("Snapshot-checkIn", ledger.snapshot())
        try check("UserBookings", ledger.bookings(of: 17, at: other.start + .seconds(600)))
        try check("Policy-checkIn", ledger.policy)
        for (name, at, language) in [
            ("Rejection-checkInNotOpen-tr", other.start + .seconds(-901), MessageLanguage.turkish),
            ("Rejection-checkInClosed", other.start + .seconds(600), .english),
        ] {
            do {
                _ = try ledger.checkIn(other.id, by: 17, at: at)
                Issue.record("a check-in at \(at) was accepted")
            } catch let rejection as Rejection {
                try check(name, rejection, language: language)
            }
        }
    }
}

extension WireFormatTests {
    /// The `checkedOut` event (version 5), a snapshot carrying a check-out (version 5, the
    /// booking `fulfilled` with its `checkedOutAt`), and the check-out refusals.
    @Test func checkOutEventAndSnapshot() throws {
        var station = Self.station
        station.sockets[0].accessCode = "QR-1"
        var ledger = try Ledger(
            stations: [station],
            policy: Policy(maxUpcomingBookings: 2, minimumNotice: .seconds(3_600), earlyCheckIn: .seconds(900)))
        let booking = try ledger.reserve(ReservationRequest(slot: Self.slot, user: 17), at: Self.now)
        let other = try ledger.reserve(
            ReservationRequest(slot: Slot(station: "IST-1", socket: "A", date: Self.day, hour: 15), user: 17),
            at: Self.now)
        try ledger.checkIn(booking.id, by: 17, accessCode: "QR-1", at: booking.start + .seconds(-300))
        try ledger.checkOut(booking.id, by: 17, at: booking.start + .seconds(2_400))
        try check("Events-checkOut", ledger.events)
        try check("Snapshot-checkOut", ledger.snapshot())
        for (name, attempt) in [
            (
                "Rejection-alreadyCheckedOut",
                { () throws(Rejection) in _ = try ledger.checkOut(booking.id, by: 17, at: Self.now) }
            ),
            (
                "Rejection-wrongAccessCode",
                { () throws(Rejection) in _ = try ledger.checkIn(other.id, by: 17, at: other.start) }
            ),
        ] {
            do throws(Rejection) {
                try attempt()
                Issue.record("\(name) was accepted")
            } catch {
                try check(name, error, language: .english)
            }
        }
    }
}
