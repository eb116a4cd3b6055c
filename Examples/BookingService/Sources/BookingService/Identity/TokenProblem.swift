/// Why a request has no verified caller: each is a 401 with a `WWW-Authenticate` challenge
/// (RFC 6750), and a message that says what to fix without saying anything about a key.
enum TokenProblem: Error, Sendable, Equatable {
    /// No `Authorization` header.
    case missing
    /// An `Authorization` header that is not `Bearer <token>`.
    case notBearer
    /// Not a JWT, a payload without `sub` or `exp`, a header or payload naming a member twice, or
    /// an algorithm or key id the service does not take.
    case unreadable
    /// The signature does not verify with the service's keys.
    case badSignature
    /// `exp` is not after the present.
    case expired
    /// `nbf` is after the present.
    case notYetValid
    /// `sub` is not a user id in decimal (0...18446744073709551615, no leading zeros).
    case badSubject

    /// RFC 6750's error code: none when no credentials were sent, `invalid_request` for a
    /// header that is not a bearer token, `invalid_token` for a token that is not accepted.
    var errorCode: String? {
        switch self {
        case .missing: nil
        case .notBearer: "invalid_request"
        case .unreadable, .badSignature, .expired, .notYetValid, .badSubject: "invalid_token"
        }
    }

    var english: String {
        switch self {
        case .missing: "This request needs a bearer token (Authorization: Bearer <JWT>)."
        case .notBearer: "The Authorization header must be Bearer <JWT>."
        case .unreadable: "The bearer token cannot be read, or is not signed with an accepted algorithm and key."
        case .badSignature: "The bearer token's signature does not verify."
        case .expired: "The bearer token has expired."
        case .notYetValid: "The bearer token is not valid yet (nbf)."
        case .badSubject: "The bearer token's sub must be a user id in decimal."
        }
    }

    var turkish: String {
        switch self {
        case .missing: "Bu istek bir bearer token ister (Authorization: Bearer <JWT>)."
        case .notBearer: "Authorization başlığı Bearer <JWT> olmalı."
        case .unreadable: "Bearer token okunamıyor ya da kabul edilen bir algoritma ve anahtarla imzalanmamış."
        case .badSignature: "Bearer token'ın imzası doğrulanmıyor."
        case .expired: "Bearer token'ın süresi dolmuş."
        case .notYetValid: "Bearer token henüz geçerli değil (nbf)."
        case .badSubject: "Bearer token'ın sub alanı ondalık bir kullanıcı numarası olmalı."
        }
    }

    /// The `WWW-Authenticate` challenge of the 401.
    var challenge: String {
        var challenge = #"Bearer realm="BookingService""#
        if let errorCode {
            challenge += #", error="\#(errorCode)", error_description="\#(english)""#
        }
        return challenge
    }
}
