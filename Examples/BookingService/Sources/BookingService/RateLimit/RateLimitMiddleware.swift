import Hummingbird
import NIOCore
import SlotScheduler

/// Answers 429 (`tooManyRequests`, with `Retry-After` in whole seconds) when the request's
/// key has no token left in ``TokenBuckets``: the client's address in front of every route,
/// the caller behind the authenticator. Requests without a key (no address) pass.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ServiceContext

    let buckets: TokenBuckets<String>
    /// The key of a request: its client's address, or its caller.
    let key: @Sendable (ServiceContext) -> String?
    /// What a 429 says the limit is on (`address`, `user`).
    let scope: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let key = key(context), let wait = buckets.take(key, at: .now) else {
            return try await next(request, context)
        }
        throw APIError.tooManyRequests(scope: scope, retryAfter: wait)
    }

    /// The limit per client address (its IP, whatever the port).
    static func perAddress(_ limit: RateLimit) -> RateLimitMiddleware {
        RateLimitMiddleware(buckets: TokenBuckets(limit), key: { $0.remoteAddress?.ipAddress }, scope: "address")
    }

    /// The limit per verified caller.
    static func perUser(_ limit: RateLimit) -> RateLimitMiddleware {
        RateLimitMiddleware(
            buckets: TokenBuckets(limit), key: { $0.identity.map { String($0.user.rawValue) } }, scope: "user")
    }
}
