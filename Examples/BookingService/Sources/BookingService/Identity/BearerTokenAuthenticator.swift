import Foundation
import Hummingbird
import HummingbirdAuth

/// The middleware in front of every route that acts for a user: it verifies the request's
/// bearer token (``TokenVerifier``) and puts its user in the context as the ``Caller``, or
/// answers 401 with a `WWW-Authenticate` challenge before the route runs.
struct BearerTokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServiceContext

    let verifier: TokenVerifier
    /// The clock `exp` is checked against, read at the edge like the routes'.
    var now: @Sendable () -> Date = { Date() }

    func authenticate(request: Request, context: Context) async throws -> Caller? {
        guard let authorization = request.headers[.authorization] else { throw APIError.unauthenticated(.missing) }
        guard let token = Self.bearerToken(authorization) else { throw APIError.unauthenticated(.notBearer) }
        do {
            return Caller(user: try await verifier.user(from: token, at: now()))
        } catch {
            throw APIError.unauthenticated(error)
        }
    }

    /// The token of an `Authorization` value `Bearer <token>`, the scheme in any case (RFC 9110
    /// 11.1: `bearer` and `BEARER` are the same scheme) and one or more spaces after it (RFC
    /// 6750 2.1), as clients send it; nil for another scheme or no token. (HummingbirdAuth's
    /// `headers.bearer` takes `Bearer ` alone, so a client writing `bearer` was refused.)
    static func bearerToken(_ authorization: String) -> String? {
        let scheme = "bearer"
        let value = authorization.utf8
        guard value.count > scheme.utf8.count,
            value.prefix(scheme.utf8.count).elementsEqual(scheme.utf8, by: { $0 | 0x20 == $1 })
        else { return nil }
        let rest = value.dropFirst(scheme.utf8.count)
        guard rest.first == UInt8(ascii: " ") else { return nil }
        let token = rest.drop { $0 == UInt8(ascii: " ") }
        return token.isEmpty ? nil : String(decoding: token, as: UTF8.self)
    }
}
