import Foundation
import SlotScheduler

/// The body of `POST /holds`, `/holds/confirm`, `/holds/release` and
/// `/bookings/{id}/reschedule`: a slot, `{"station":"IST-1","socket":"A","date":"2026-12-01","hour":14}`
/// (the user is the caller), with
/// `reminderSeconds` (a hold) or `requestID` (a reschedule) where the operation takes them.
/// Fields not listed are ignored.
struct SlotBody: JSONRequestBody {
    static let integerFields: Set<String> = ["hour", "reminderSeconds"]

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

/// The body of `POST /bookings/{id}/check-in`, if any: `{}` (the caller checks in their own
/// booking; an empty body is the same), or `{"accessCode": "…"}`, the code shown on the socket,
/// which a socket with one needs (422 `wrongAccessCode` without it or with another).
struct CheckInBody: JSONRequestBody {
    static let integerFields: Set<String> = []
    /// The longest code taken, in Unicode scalars (what a JSON Schema `maxLength` counts): a
    /// socket's code is at most 128 UTF-8 bytes (the library's `IdentifierRule`).
    static let maxAccessCodeLength = 128

    var accessCode: String?

    enum CodingKeys: String, CodingKey { case accessCode }

    init(accessCode: String? = nil) { self.accessCode = accessCode }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // A field given must be a string: `null` is refused, not read as no code.
        if c.contains(.accessCode), try c.decodeNil(forKey: .accessCode) {
            throw DecodingError.valueNotFound(
                String.self,
                DecodingError.Context(codingPath: c.codingPath + [CodingKeys.accessCode], debugDescription: "null"))
        }
        accessCode = try c.decodeIfPresent(String.self, forKey: .accessCode)
    }

    /// Reads `data`: nothing, or a JSON object without `user`, whose `accessCode`, when given, is
    /// a string of 1 to ``maxAccessCodeLength`` characters (a 400 otherwise, as a malformed body).
    static func decode(_ data: Data) throws(APIError) -> CheckInBody {
        let body = data.isEmpty ? CheckInBody() : try JSONInput.decode(CheckInBody.self, data)
        if let code = body.accessCode, !(1...maxAccessCodeLength).contains(code.unicodeScalars.count) {
            throw APIError.malformed(
                "Field accessCode must be a string of 1 to \(maxAccessCodeLength) characters.",
                "accessCode alanı 1 ile \(maxAccessCodeLength) karakter arası bir metin olmalı.")
        }
        return body
    }
}

/// The body of `POST /bookings/{id}/check-out`, if any: `{}` (the caller checks out their own
/// booking; an empty body is the same), or `{"leftAt": {"latitude": 52.52, "longitude": 13.40}}`
/// for a resource left elsewhere (a shared vehicle): its station moves there.
struct CheckOutBody: JSONRequestBody {
    static let integerFields: Set<String> = []

    var leftAt: Coordinate?

    init(leftAt: Coordinate? = nil) { self.leftAt = leftAt }

    /// Reads `data`: nothing, or a JSON object without `user`, whose `leftAt`, when given, is a
    /// point on Earth (a 400 otherwise, as a malformed body).
    static func decode(_ data: Data) throws(APIError) -> CheckOutBody {
        let body = data.isEmpty ? CheckOutBody() : try JSONInput.decode(CheckOutBody.self, data)
        if let place = body.leftAt, !place.isValid {
            throw APIError.malformed(
                "Field leftAt must be a point on Earth: latitude -90...90, longitude -180...180.",
                "leftAt alanı yeryüzünde bir nokta olmalı: enlem -90...90, boylam -180...180.")
        }
        return body
    }
}

/// The body of `POST /reservations/any-socket`:
/// `{"station":"IST-1","connector":"CCS","minimumPowerKW":50,"date":"2026-12-01","hour":14}`
/// (`minimumPowerKW`, `requestID` and `reminderSeconds` optional), for the caller. The service
/// picks the socket.
struct AnySocketBody: JSONRequestBody {
    static let integerFields: Set<String> = ["hour", "reminderSeconds"]

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

    /// `user`'s request as the library takes it; a power outside 0...``maxPowerKW`` or a date that cannot be
    /// read is a 400.
    func request(for user: UserID) throws(APIError) -> AnySocketRequest {
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
            date: localDate, hour: hour, user: user, requestID: requestID.map(RequestID.init(_:)),
            reminder: reminderSeconds.map { .seconds($0) })
    }
}
