import Hummingbird
import HummingbirdAuth
import NIOCore
import SlotScheduler

/// Who is asking: the user a verified bearer token names (its `sub`). Every route that acts for
/// a user reads it from the request's context, never from the request's body, path or query.
struct Caller: Sendable, Equatable {
    var user: UserID
}

/// The request context of every route: Hummingbird's, with the client's address (for its rate
/// limit and its spans) and the ``Caller`` once a ``BearerTokenAuthenticator`` has verified the
/// request's token.
struct ServiceContext: AuthRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    var identity: Caller?
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        remoteAddress = source.channel.remoteAddress
    }
}

extension AuthRequestContext<Caller> {
    /// The caller of a route behind ``BearerTokenAuthenticator`` (which answers 401 before the
    /// route runs when there is none); a 401 all the same if a route is registered without it.
    func caller() throws(APIError) -> Caller {
        guard let identity else { throw APIError.unauthenticated(.missing) }
        return identity
    }
}
