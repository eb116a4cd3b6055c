import Foundation
import Hummingbird
import SlotScheduler

/// JSON responses: sorted keys (so answers are byte-stable), messages in the caller's language.
enum JSONBody {
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

    private static func headers(_ language: MessageLanguage) -> HTTPFields {
        // The message language follows Accept-Language, so caches must key on it.
        [
            .contentType: "application/json; charset=utf-8", .contentLanguage: language.rawValue,
            .vary: "Accept-Language",
        ]
    }
}
