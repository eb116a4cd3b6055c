import Foundation
import SlotScheduler

/// The body of `POST /reservations`:
/// `{"station":"IST-1","socket":"A","date":"2026-12-01","hour":14,"requestID":"r-1"}`
/// (`requestID` and `reminderSeconds` optional), for the caller. Fields not listed are ignored,
/// but `user` is refused (``JSONInput``).
struct ReservationBody: JSONRequestBody {
    static let integerFields: Set<String> = ["hour", "reminderSeconds"]

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

    /// `user`'s request as the library takes it; a date that is not a real `YYYY-MM-DD` in the supported
    /// years is a 400, like any other field that cannot be read.
    func request(for user: UserID) throws(APIError) -> ReservationRequest {
        let localDate: LocalDate
        do { localDate = try LocalDate(parsing: date) } catch { throw APIError(error) }
        return ReservationRequest(
            slot: Slot(station: StationID(station), socket: SocketID(socket), date: localDate, hour: hour),
            user: user, requestID: requestID.map(RequestID.init(_:)),
            reminder: reminderSeconds.map { .seconds($0) })
    }
}
