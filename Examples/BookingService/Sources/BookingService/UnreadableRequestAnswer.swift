import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import SlotScheduler

/// Gives the 400 that answers a request the HTTP parser cannot read (an unknown method, bytes
/// not allowed in a path, a Content-Length that is not a number, two framings) the JSON error
/// body every other error has (`malformedRequest`, in English: no header of it could be read).
///
/// Hummingbird answers such a request itself, before any route or middleware, with an empty 400
/// and closes the connection. This handler sees the parser's error pass and fills in the body
/// of the 400 that follows it; every other response passes unchanged.
final class UnreadableRequestAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var parserFailed = false
    private var answer = BareAnswer()
    /// The problem ``HeadCheck`` found, said in place of ``error``'s message.
    private var headProblem: HeadProblem?

    static let error = OwnBody(
        reason: APIError.Reason.malformedRequest.rawValue,
        message: "The request is not HTTP/1.1 that can be read: its request line, a header or its body's framing.")

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let problem = error as? HeadProblem {
            // Hummingbird answers a parser's error with its 400 and closes; this is one.
            headProblem = problem
            parserFailed = true
            return context.fireErrorCaught(HTTPParserError.invalidHeaderToken)
        }
        if error is HTTPParserError { parserFailed = true }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(var head) = part, parserFailed, head.status == .badRequest, head.headerFields[.contentType] == nil
        {
            parserFailed = false
            let detail = headProblem.map { OwnBody(reason: Self.error.reason, message: $0.message) } ?? Self.error
            if answer.fill(&head, with: detail, status: .badRequest) {
                return context.write(wrapOutboundOut(.head(head)), promise: promise)
            }
        }
        if case .end = part, let body = answer.takeBody() { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.write(data, promise: promise)
    }
}
