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
        guard request.headers[.authorization] != nil else { throw APIError.unauthenticated(.missing) }
        guard let bearer = request.headers.bearer, !bearer.token.isEmpty else {
            throw APIError.unauthenticated(.notBearer)
        }
        do {
            return Caller(user: try await verifier.user(from: bearer.token, at: now()))
        } catch {
            throw APIError.unauthenticated(error)
        }
    }
}
