import Foundation
import SlotScheduler

/// The body of `POST /reservations`:
/// `{"user":17,"station":"IST-1","socket":"A","date":"2026-12-01","hour":14,"requestID":"r-1"}`
/// (`requestID` and `reminderSeconds` optional). Fields not listed are ignored.
struct ReservationBody: Decodable {
    var user: UInt64
    var station: String
    var socket: String
    var date: String
    var hour: Int
    var requestID: String?
    var reminderSeconds: Int64?

    /// Decodes `buffer`; anything that is not such an object is a 400 saying which field and why.
    static func decode(_ data: Data) throws(APIError) -> ReservationBody {
        do {
            return try JSONDecoder().decode(ReservationBody.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            // Foundation names no field for a number out of its type's range; say what is wrong.
            throw Self.unreadable(data)
        } catch let error as DecodingError {
            throw APIError.malformed(Self.english(error), Self.turkish(error))
        } catch {
            throw APIError.malformed("The body is not valid JSON.", "Gövde geçerli JSON değil.")
        }
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

    private static func unreadable(_ data: Data) -> APIError {
        guard let document = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return APIError.malformed("The body is not valid JSON.", "Gövde geçerli JSON değil.")
        }
        guard document is [String: Any] else {
            return APIError.malformed("The body is not a JSON object.", "Gövde bir JSON nesnesi değil.")
        }
        return APIError.malformed(
            "A number is out of range or not an integer: user must be an integer 0...18446744073709551615, "
                + "hour and reminderSeconds integers.",
            "Bir sayı aralık dışında ya da tam sayı değil: user 0...18446744073709551615 arası bir tam sayı, "
                + "hour ve reminderSeconds tam sayı olmalı.")
    }

    private static func field(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// Whether `error` is about the body as a whole (`null`, `"x"`, `[]`), not one field.
    private static func isTopLevel(_ error: DecodingError) -> Bool {
        switch error {
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            return context.codingPath.isEmpty
        case .keyNotFound: return false
        @unknown default: return false
        }
    }

    private static func english(_ error: DecodingError) -> String {
        if isTopLevel(error) { return "The body is not a JSON object." }
        switch error {
        case .keyNotFound(let key, let context):
            return "Field \(field(context.codingPath + [key])) is required."
        case .valueNotFound(_, let context):
            return "Field \(field(context.codingPath)) must not be null."
        case .typeMismatch(let type, let context):
            return "Field \(field(context.codingPath)) has the wrong type; expected \(expected(type))."
        case .dataCorrupted(let context):
            return "Field \(field(context.codingPath)) cannot be read; expected \(expected(nil))."
        @unknown default:
            return "The body cannot be read."
        }
    }

    private static func turkish(_ error: DecodingError) -> String {
        if isTopLevel(error) { return "Gövde bir JSON nesnesi değil." }
        switch error {
        case .keyNotFound(let key, let context): return "\(field(context.codingPath + [key])) alanı gerekli."
        case .valueNotFound(_, let context): return "\(field(context.codingPath)) alanı null olamaz."
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return "\(field(context.codingPath)) alanı okunamıyor."
        @unknown default: return "Gövde okunamıyor."
        }
    }

    private static func expected(_ type: Any.Type?) -> String {
        switch type {
        case is UInt64.Type: "an integer 0...18446744073709551615"
        case is Int.Type: "an integer"
        case is Int64.Type: "an integer"
        case is String.Type: "a string"
        default: "a value of the documented type and range"
        }
    }
}
