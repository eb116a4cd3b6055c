import Foundation
import Testing

@testable import SlotScheduler

/// Time zones at the edges: a skipped whole day (Samoa, 2011-12-30), the largest offsets
/// (±14 h), quarter- and half-hour offsets, half-hour DST (Lord Howe).
@Suite struct ExtremeZoneTests {
    static let zones = [
        "Pacific/Apia", "Pacific/Kiritimati", "Etc/GMT-14", "Etc/GMT+12", "Asia/Kathmandu", "America/St_Johns",
        "Australia/Lord_Howe", "Pacific/Chatham", "UTC",
    ]

    static func station(_ zone: String) -> Station {
        Station(
            id: StationID("Z"), name: "Zone", city: "Anywhere", timeZone: zone,
            sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])
    }

    @Test(arguments: zones)
    func everyHourAroundTheEdgesIsBookedOnceOrRefused(zone: String) throws {
        let rules = try Rules(catalog: try Catalog([Self.station(zone)]), policy: Policy(maxUpcomingBookings: 100_000))
        var ledger = Ledger(rules: rules)
        let now = Instant(secondsSinceEpoch: 0)
        var starts: [Instant] = []
        for (year, month, day) in [(2011, 12, 29), (2011, 12, 30), (2011, 12, 31), (1994, 12, 31), (2024, 4, 7)] {
            let date = try LocalDate(year: year, month: month, day: day)
            for hour in 0..<24 {
                let request = ReservationRequest(
                    slot: Slot(station: "Z", socket: "1", date: date, hour: hour), user: UserID(UInt64(starts.count)))
                do throws(Rejection) {
                    let booking = try ledger.reserve(request, at: now)
                    starts.append(booking.start)
                    #expect(booking.end.secondsSinceEpoch - booking.start.secondsSinceEpoch == 3_600)
                } catch {
                    #expect(error.reason == .nonexistentLocalTime, "\(zone) \(date) \(hour): \(error)")
                }
            }
            _ = try ledger.dayView(of: "Z", on: date, at: now)
        }
        #expect(starts.count >= 5 * 24 - 25, "at most a skipped day and an hour refused")
        #expect(Set(starts).count == starts.count, "two bookings start at the same instant in \(zone)")
        if zone == "Pacific/Apia" {
            let skipped = try LocalDate(year: 2011, month: 12, day: 30)
            #expect(ledger.allBookings.allSatisfy { $0.slot.date != skipped })
        }
        for seconds in [Int64.min, -1, 0, 1_325_000_000, .max] {
            _ = rules.catalog.localDate(of: "Z", at: Instant(secondsSinceEpoch: seconds))
            _ = rules.latestReleasableDate(at: Instant(secondsSinceEpoch: seconds))
        }
    }

    /// A zone is read from Foundation and tabled once per process: a second catalog naming it
    /// shares the first one's table instead of building 36,525 days again.
    @Test func catalogsOfOneZoneShareItsClock() throws {
        func table(_ catalog: Catalog) -> UnsafeRawPointer? {
            catalog.zones[0].dayOffsets.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        let first = try Catalog([Self.station("Australia/Lord_Howe")])
        let second = try Catalog([Self.station("Australia/Lord_Howe")])
        #expect(table(first) != nil)
        #expect(table(first) == table(second))
        #expect(first.zones[0].dayOffsets == second.zones[0].dayOffsets)
        // A name Foundation does not know is refused every time, and never kept.
        #expect(throws: InvalidValue.self) { try Catalog([Self.station("Mars/Olympus_Mons")]) }
        #expect(throws: InvalidValue.self) { try Catalog([Self.station("Mars/Olympus_Mons")]) }
    }
}
