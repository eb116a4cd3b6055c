import Foundation
import Hummingbird
import SlotScheduler

/// Reading what a request carries, refusing what cannot be read with a 400 and never trusting a
/// size: the query string, percent-encoded path segments, and a body bounded in bytes.
struct HTTPInput {
    /// The most bytes a request body may have; more is answered 413.
    static let maxBodyBytes = 16 * 1024
    /// The most bytes a query string may have; more is answered 400.
    static let maxQueryBytes = 4 * 1024

    /// The query's parameters, percent-decoded (`+` is a space). A name given twice is a 400, as
    /// a JSON body's key given twice is (``JSONSyntax``): readers differ on which value counts.
    static func query(of request: Request) throws(APIError) -> [String: String] {
        guard let query = request.uri.query, !query.isEmpty else { return [:] }
        guard query.utf8.count <= maxQueryBytes else {
            throw APIError.malformed(
                "The query string is longer than \(maxQueryBytes) bytes.",
                "Sorgu dizesi \(maxQueryBytes) bayttan uzun.")
        }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(parts[0], name: "query")
            let value = try decode(parts.count > 1 ? parts[1] : "", name: name)
            guard parameters[name] == nil else {
                let shown = IdentifierRule.shortened(name).debugDescription
                throw APIError.malformed(
                    "Query parameter \(shown) is given twice.", "\(shown) sorgu parametresi iki kez verilmiş.")
            }
            parameters[name] = value
        }
        return parameters
    }

    /// A percent-encoded component as text; bad encoding or bytes that are not UTF-8 are a 400.
    static func decode(_ component: Substring, name: String) throws(APIError) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else {
            throw APIError.parameter(name, String(component))
        }
        return decoded
    }

    /// A path parameter, percent-decoded (`+` stays a plus in a path).
    static func path(_ name: String, _ context: some RequestContext) throws(APIError) -> String {
        guard let raw = context.parameters.get(name) else { throw APIError.parameter(name, "") }
        guard let decoded = raw.removingPercentEncoding else { throw APIError.parameter(name, raw) }
        return decoded
    }

    /// The booking id of a path, when it is one as the service issues them: decimal digits as
    /// ``BookingID/description`` writes them (`02199` is not booking 2199, but an id never issued).
    static func bookingID(_ text: String) -> BookingID? {
        BookingID(text).flatMap { $0.description == text ? $0 : nil }
    }

    /// An unsigned integer parameter (a user id): decimal digits only.
    static func unsigned(_ text: String?, name: String) throws(APIError) -> UInt64 {
        guard let text else { throw missing(name) }
        guard let value = UserID(text)?.rawValue else { throw APIError.parameter(name, text) }
        return value
    }

    /// An integer parameter (a page number): an optional `-` then decimal digits, within `Int`.
    static func integer(_ text: String?, name: String, default fallback: Int) throws(APIError) -> Int {
        guard let text else { return fallback }
        guard text.utf8.count <= 20, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) }),
            let value = Int(text)
        else { throw APIError.parameter(name, text) }
        return value
    }

    /// The most characters (Unicode code points, as JSON Schema counts) of a search text; 64
    /// of them fit the library's 256 UTF-8 bytes whatever they are.
    static let maxTextCharacters = 64

    /// A search text: absent when empty, a 400 when longer than ``maxTextCharacters``.
    static func text(_ text: String?, name: String) throws(APIError) -> String? {
        guard let text, !text.isEmpty else { return nil }
        guard text.unicodeScalars.count <= maxTextCharacters else {
            throw APIError(
                .badRequest, .invalidParameter,
                english: "Parameter \(name) is longer than \(maxTextCharacters) characters.",
                turkish: "\(name) parametresi \(maxTextCharacters) karakterden uzun.")
        }
        return text
    }

    static func missing(_ name: String) -> APIError {
        APIError(
            .badRequest, .invalidParameter, english: "Parameter \(name) is required.",
            turkish: "\(name) parametresi gerekli.")
    }

    /// The body length a `Content-Length` value announces; nil when it is not a decimal number.
    /// Digits past `Int.max` (the HTTP parser takes up to 2^64 - 1) announce `Int.max`: more than
    /// any limit, not no length at all.
    static func announcedLength(_ value: String?) -> Int? {
        guard let value, !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(value) ?? .max
    }

    /// The first transfer coding of `Transfer-Encoding` (one or more fields of comma-separated
    /// codings) other than `chunked`, the only one the HTTP parser decodes; nil when there is none.
    static func unknownTransferCoding(_ values: [String]) -> String? {
        values.lazy.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .first { !$0.isEmpty && $0 != "chunked" }
    }

    /// The body, at most ``maxBodyBytes``: a larger one (by its `Content-Length` or by what
    /// arrives) is a 413 without reading the rest. A body in a transfer coding the server does not
    /// decode (`Transfer-Encoding: gzip, chunked`) is a 501, as RFC 9112 (6.1) asks, not read
    /// as if it were plain JSON.
    static func body(of request: Request) async throws(APIError) -> ByteBuffer {
        if let coding = unknownTransferCoding(request.headers[values: .transferEncoding]) {
            throw APIError(
                .notImplemented, .malformedRequest,
                english:
                    "The transfer coding \(coding.prefix(40)) is not supported: send the body as it is, or chunked.",
                turkish:
                    "\(coding.prefix(40)) aktarım kodlaması desteklenmiyor: gövdeyi olduğu gibi ya da chunked gönderin."
            )
        }
        let tooLarge = APIError(
            .contentTooLarge, .bodyTooLarge, english: "The request body is larger than \(maxBodyBytes) bytes.",
            turkish: "İstek gövdesi \(maxBodyBytes) bayttan büyük.")
        if let bytes = announcedLength(request.headers[.contentLength]), bytes > maxBodyBytes { throw tooLarge }
        var buffer = ByteBuffer()
        do {
            for try await chunk in request.body {
                guard buffer.readableBytes + chunk.readableBytes <= maxBodyBytes else { throw tooLarge }
                buffer.writeImmutableBuffer(chunk)
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.malformed("The request body could not be read.", "İstek gövdesi okunamadı.")
        }
        return buffer
    }
}
