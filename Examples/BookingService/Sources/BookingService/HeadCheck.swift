import NIOCore
import NIOHTTP1

/// Refuses what RFC 9112 (section 3.2) says a server must answer with 400: an HTTP/1.1 request
/// without a `Host` header, a request with more than one, and a `Host` that is not a host with
/// an optional port. Readers of two `Host` lines differ on which one counts (Hummingbird takes
/// the first as the authority; a proxy on the way may take the last). Also an HTTP/1.0 request
/// with `Transfer-Encoding`, whose framing section 6.1 says to treat as faulty (NIO would read
/// it chunked, where a front end speaking HTTP/1.0 may not: a way to smuggle a request).
///
/// In front of the HTTP/1 to HTTP types codec (``CodecFront``), where the version is known: a
/// refused head is not passed on, the rest of that request is dropped, and ``HeadProblem`` is
/// raised for ``UnreadableRequestAnswer``, which turns it into the parser's 400 (the connection
/// is then closed) with a body that names the problem.
final class HeadCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Whether the request being read was refused: its body and end are dropped.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            refused = false
            if let problem = HeadProblem(head) {
                refused = true
                context.fireErrorCaught(problem)
                return
            }
        case .body, .end:
            if refused { return }
        }
        context.fireChannelRead(data)
    }
}

/// Why a request's head is refused, in the words of the 400's problem body.
struct HeadProblem: Error, Equatable {
    var message: String

    /// The problem of `head`'s framing or `Host` lines; nil when there is none.
    init?(_ head: HTTPRequestHead) {
        if head.version == .http1_0, head.headers.contains(name: "transfer-encoding") {
            message = "An HTTP/1.0 request must not carry Transfer-Encoding: its framing is faulty (RFC 9112, 6.1)."
            return
        }
        let hosts = head.headers["host"]
        switch hosts.count {
        case 0 where (head.version.major, head.version.minor) >= (1, 1):
            message = "An HTTP/1.1 request must carry a Host header (RFC 9112, 3.2)."
        case 0:
            return nil
        case 1 where Self.isHost(hosts[0]):
            return nil
        case 1:
            message = "The Host header is not a host with an optional port (RFC 9112, 3.2)."
        default:
            message = "A request must carry one Host header, not \(hosts.count) (RFC 9112, 3.2)."
        }
    }

    /// `uri-host [ ":" port ]` (RFC 3986): a name of unreserved, sub-delims and `%` bytes, or an
    /// IP literal in brackets, then digits after a colon; empty is allowed (a target without an
    /// authority).
    static func isHost(_ value: String) -> Bool {
        var host = Substring(value)
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return false }
            host = host[..<colon]
        }
        if host.first == "[" {
            return host.count > 2 && host.last == "]"
                && host.dropFirst().dropLast().allSatisfy { ($0.isASCII && $0.isHexDigit) || $0 == ":" || $0 == "." }
        }
        return host.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (Character(scalar).isLetter || Character(scalar).isNumber
                    || "-._~!$&'()*+,;=%".unicodeScalars.contains(scalar))
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
