import Foundation
import SlotScheduler

/// The body of `POST /reservations`:
/// `{"user":17,"station":"IST-1","socket":"A","date":"2026-12-01","hour":14,"requestID":"r-1"}`
/// (`requestID` and `reminderSeconds` optional). Fields not listed are ignored.
struct ReservationBody: JSONRequestBody {
    static let integerFields: Set<String> = ["user", "hour", "reminderSeconds"]

    var user: UInt64
    var station: String
    var socket: String
    var date: String
    var hour: Int
    var requestID: String?
    var reminderSeconds: Int64?

    /// Decodes `data`; anything that is not such an object is a 400 saying which field and why.
    static func decode(_ data: Data) throws(APIError) -> ReservationBody {
        try JSONInput.decode(ReservationBody.self, data)
    }

    /// The request the library takes; a date that is not a real `YYYY-MM-DD` in the supported
    /// years is a 400, like any other field that cannot be read.
    func request() throws(APIError) -> ReservationRequest {
        let localDate: LocalDate
        do { localDate = try LocalDate(parsing: date) } catch { throw APIError(error) }
        return ReservationRequest(
            slot: Slot(station: StationID(station), socket: SocketID(socket), date: localDate, hour: hour),
            user: UserID(user), requestID: requestID.map(RequestID.init(_:)),
            reminder: reminderSeconds.map { .seconds($0) })
    }
}
