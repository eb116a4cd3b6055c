import Foundation
import SlotScheduler
import Testing

/// Shared stations, dates and helpers for the example tests.
///
/// Times are chosen in British Summer Time (UTC+1) unless a test is about DST, so local hour `h`
/// on a June date starts at `h - 1` o'clock UTC.
enum Fixture {
    /// London, three sockets; socket 3 is open 08:00–20:00 only. Has a cafe and a WC.
    static let london = Station(
        id: "LON", name: "Greenmarket", city: "London", timeZone: "Europe/London",
        coordinate: Coordinate(latitude: 51.5074, longitude: -0.1278),
        sockets: [
            Socket(id: "1", connector: .type2, powerKW: 22),
            Socket(id: "2", connector: .ccs, powerKW: 50),
            Socket(id: "3", connector: .chademo, powerKW: 50, openingHours: HourSet(8..<20)),
        ],
        facilities: ["Cafe", "WC"])

    /// A second London station, further from central London, with a fast CCS charger.
    static let heathrow = Station(
        id: "LHR", name: "Heathrow Park", city: "london", timeZone: "Europe/London",
        coordinate: Coordinate(latitude: 51.47, longitude: -0.4543),
        sockets: [Socket(id: "A", connector: "ccs", powerKW: 150)],
        facilities: ["parking"])

    static let istanbul = Station(
        id: "IST", name: "Kadıköy Şarj", city: "İstanbul", timeZone: "Europe/Istanbul",
        coordinate: Coordinate(latitude: 40.9900, longitude: 29.0300),
        sockets: [Socket(id: "1", connector: .type2, powerKW: 22)],
        facilities: ["Kafe", "wc"])

    static let cankiri = Station(
        id: "CKR", name: "Merkez Otopark", city: "Çankırı", timeZone: "Europe/Istanbul",
        coordinate: Coordinate(latitude: 40.6013, longitude: 33.6134),
        sockets: [Socket(id: "1", connector: .ccs, powerKW: 60)])

    static let izmir = Station(
        id: "IZM", name: "Alsancak Liman", city: "İzmir", timeZone: "Europe/Istanbul",
        coordinate: Coordinate(latitude: 38.4382, longitude: 27.1418),
        sockets: [Socket(id: "1", connector: .type2, powerKW: 11)], facilities: ["parking", "cafe"])

    /// A station without coordinates.
    static let nowhere = Station(
        id: "NOW", name: "Unmapped", city: "Ankara", timeZone: "Europe/Istanbul",
        sockets: [Socket(id: "1", connector: .type1, powerKW: 7)])

    static let stations = [london, heathrow, istanbul, cankiri, izmir, nowhere]

    /// The default policy of the tests: at most 3 upcoming bookings, no other limits.
    static let policy = Policy(maxUpcomingBookings: 3)

    static func ledger(_ policy: Policy = policy, stations: [Station] = stations) throws -> Ledger {
        Ledger(rules: try Rules(catalog: try Catalog(stations), policy: policy))
    }

    static func scheduler(_ policy: Policy = policy, stations: [Station] = stations, shards: Int = 4) throws
        -> Scheduler
    {
        Scheduler(rules: try Rules(catalog: try Catalog(stations), policy: policy), shards: shards)
    }

    /// The booking date most tests use: Sunday 2018-06-10 (BST).
    static func day() throws -> LocalDate { try LocalDate(parsing: "2018-06-10") }

    /// 2018-06-01 09:00 UTC, well before ``day()``.
    static func earlyNow() throws -> Instant { Instant.utc(try LocalDate(parsing: "2018-06-01"), hour: 9) }

    static func date(_ text: String) throws -> LocalDate { try LocalDate(parsing: text) }

    static func slot(_ station: StationID, _ socket: SocketID, _ date: LocalDate, _ hour: Int) -> Slot {
        Slot(station: station, socket: socket, date: date, hour: hour)
    }

    /// A slot of socket 1 of ``london``.
    static func slot(_ date: LocalDate, _ hour: Int) -> Slot {
        Slot(station: "LON", socket: "1", date: date, hour: hour)
    }

    static func request(
        _ slot: Slot, user: UserID, id: RequestID? = nil, reminder: Duration? = nil
    ) -> ReservationRequest {
        ReservationRequest(slot: slot, user: user, requestID: id, reminder: reminder)
    }
}

/// Runs `body` and returns the rejection it threw, or `nil` if it succeeded.
func refusal<T>(_ body: () throws -> T) -> Rejection? {
    do {
        _ = try body()
        return nil
    } catch let rejection as Rejection {
        return rejection
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// Runs `body` and returns the invalid value it threw, or `nil` if it succeeded.
func invalidValue<T>(_ body: () throws -> T) -> InvalidValue? {
    do {
        _ = try body()
        return nil
    } catch let error as InvalidValue {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// Events as JSON with sorted keys: the byte form the determinism tests compare.
func journalBytes(_ events: [Event]) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(events)
}
