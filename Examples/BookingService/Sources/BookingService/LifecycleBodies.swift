import Foundation
import SlotScheduler

/// The body of `POST /holds`, `/holds/confirm`, `/holds/release` and
/// `/bookings/{id}/reschedule`: a user and a slot,
/// `{"user":17,"station":"IST-1","socket":"A","date":"2026-12-01","hour":14}`, with
/// `reminderSeconds` (a hold) or `requestID` (a reschedule) where the operation takes them.
/// Fields not listed are ignored.
struct SlotBody: JSONRequestBody {
    static let integerFields: Set<String> = ["user", "hour", "reminderSeconds"]

    var user: UInt64
    var station: String
    var socket: String
    var date: String
    var hour: Int
    var reminderSeconds: Int64?
    var requestID: String?

    static func decode(_ data: Data) throws(APIError) -> SlotBody { try JSONInput.decode(SlotBody.self, data) }

    /// The slot; a date that is not a real `YYYY-MM-DD` in the supported years is a 400.
    func slot() throws(APIError) -> Slot {
        let localDate: LocalDate
        do { localDate = try LocalDate(parsing: date) } catch { throw APIError(error) }
        return Slot(station: StationID(station), socket: SocketID(socket), date: localDate, hour: hour)
    }

    var reminder: Duration? { reminderSeconds.map { .seconds($0) } }
}

/// The body of `POST /bookings/{id}/check-in`: the user asking (the owner), `{"user":17}`.
/// Fields not listed are ignored.
struct UserBody: JSONRequestBody {
    static let integerFields: Set<String> = ["user"]

    var user: UInt64

    static func decode(_ data: Data) throws(APIError) -> UserBody { try JSONInput.decode(UserBody.self, data) }
}

/// The body of `POST /reservations/any-socket`:
/// `{"user":17,"station":"IST-1","connector":"CCS","minimumPowerKW":50,"date":"2026-12-01","hour":14}`
/// (`minimumPowerKW`, `requestID` and `reminderSeconds` optional). The service picks the socket.
struct AnySocketBody: JSONRequestBody {
    static let integerFields: Set<String> = ["user", "hour", "reminderSeconds"]

    var user: UInt64
    var station: String
    var connector: String
    var minimumPowerKW: Double?
    var date: String
    var hour: Int
    var requestID: String?
    var reminderSeconds: Int64?

    static func decode(_ data: Data) throws(APIError) -> AnySocketBody {
        try JSONInput.decode(AnySocketBody.self, data)
    }

    /// The most kilowatts a request may ask for (the contract's maximum).
    static let maxPowerKW = 100_000.0

    /// The request the library takes; a power outside 0...``maxPowerKW`` or a date that cannot be
    /// read is a 400.
    func request() throws(APIError) -> AnySocketRequest {
        let power = minimumPowerKW ?? 0
        guard power >= 0, power <= Self.maxPowerKW else {
            throw APIError.malformed(
                "Field minimumPowerKW must be a number 0...100000.",
                "minimumPowerKW alanı 0...100000 arası bir sayı olmalı.")
        }
        let localDate: LocalDate
        do { localDate = try LocalDate(parsing: date) } catch { throw APIError(error) }
        return AnySocketRequest(
            station: StationID(station), connector: ConnectorType(connector), minimumPowerKW: power,
            date: localDate, hour: hour, user: UserID(user), requestID: requestID.map(RequestID.init(_:)),
            reminder: reminderSeconds.map { .seconds($0) })
    }
}
