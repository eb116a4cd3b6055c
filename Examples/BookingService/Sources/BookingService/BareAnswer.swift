import Hummingbird
import NIOCore
import SlotScheduler

/// A bare answer (a status, no body) that a handler below the routes gives the JSON problem body
/// every other error has, in English: ``fill(_:with:status:)`` at its head, ``takeBody()`` at its
/// end (``UnreadableRequestAnswer``, ``UpgradeFallback``).
struct BareAnswer {
    private var body: ByteBuffer?

    /// Makes `head` the head of `detail`'s problem with `status`, keeping the body for the end;
    /// `false` (and `head` unchanged) when the body cannot be encoded.
    mutating func fill(_ head: inout HTTPResponse, with detail: OwnBody, status: HTTPResponse.Status) -> Bool {
        guard let bytes = JSONBody.problemBytes(detail, status: status) else { return false }
        head.status = status
        head.headerFields[.contentType] = "application/problem+json; charset=utf-8"
        head.headerFields[.contentLanguage] = MessageLanguage.english.rawValue
        head.headerFields[.contentLength] = String(bytes.count)
        body = ByteBuffer(bytes: bytes)
        return true
    }

    /// The body kept for the answer's end, once.
    mutating func takeBody() -> ByteBuffer? {
        defer { body = nil }
        return body
    }
}
