import Foundation
import Hummingbird
import SlotScheduler

/// JSON responses: sorted keys (so answers are byte-stable), messages in the caller's language.
enum JSONBody {
    /// An error answer as RFC 9457 `application/problem+json`: `value`'s fields (`reason`,
    /// `message`, …) with `type` (`about:blank`: the status says what kind of problem it is),
    /// `title` (the status's phrase) and `status`.
    static func problem(_ status: HTTPResponse.Status, _ value: some Encodable, language: MessageLanguage)
        -> Response
    {
        var response = response(status, Problem(detail: value, status: status), language: language)
        response.headers[.contentType] = "application/problem+json; charset=utf-8"
        return response
    }

    static func response(_ status: HTTPResponse.Status, _ value: some Encodable, language: MessageLanguage)
        -> Response
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.userInfo[.messageLanguage] = language
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            // Only a non-finite Double fails to encode, and no value here holds one; answer
            // something well-formed all the same.
            data = Data(#"{"reason":"internalError","message":"The answer could not be encoded."}"#.utf8)
            return Response(
                status: .internalServerError, headers: headers(language),
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        return Response(
            status: status, headers: headers(language), body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A problem's bytes, for the handlers that answer below the routes (``UnreadableRequestAnswer``,
    /// ``UpgradeFallback``, ``UpgradeWatch``): the same JSON as ``problem(_:_:language:)``'s.
    static func problemBytes(_ detail: some Encodable, status: HTTPResponse.Status) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try? encoder.encode(Problem(detail: detail, status: status))
    }

    /// A problem's fields around its detail's.
    struct Problem<Detail: Encodable>: Encodable {
        var detail: Detail
        var status: HTTPResponse.Status

        enum Key: String, CodingKey { case type, title, status }

        func encode(to encoder: any Encoder) throws {
            try detail.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("about:blank", forKey: .type)
            try container.encode(status.reasonPhrase, forKey: .title)
            try container.encode(status.code, forKey: .status)
        }
    }

    private static func headers(_ language: MessageLanguage) -> HTTPFields {
        // The message language follows Accept-Language, so caches must key on it.
        [
            .contentType: "application/json; charset=utf-8", .contentLanguage: language.rawValue,
            .vary: "Accept-Language",
        ]
    }
}
