import Foundation
import SlotScheduler

/// A request body: its JSON object, and the fields of it that are integers.
protocol JSONRequestBody: Decodable {
    /// The fields whose values must be whole numbers (``JSONIntegers``).
    static var integerFields: Set<String> { get }
}

/// The names of a JSON object's keys, whatever their values.
private struct TopLevelKeys: Decodable {
    var names: [String]

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        names = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
    }
}

/// Reading a JSON request body into a `Decodable` body type: anything that is not such an object
/// is a 400 (`malformedRequest`) saying which field and why, in English and Turkish.
enum JSONInput {
    /// Decodes `data` as `type`; an integer field written as a number that is not whole (which
    /// the decoder would round to one) is a 400 too, and so is what ``JSONSyntax`` refuses.
    static func decode<T: JSONRequestBody>(_ type: T.Type, _ data: Data) throws(APIError) -> T {
        if let problem = JSONSyntax.problem(in: data) { throw problem }
        let value = try decoded(T.self, data)
        // The user is the bearer token's; a body naming one is refused, not ignored.
        if let keys = try? JSONDecoder().decode(TopLevelKeys.self, from: data), keys.names.contains("user") {
            throw APIError.userInBody
        }
        if let (field, literal) = JSONIntegers.inexact(in: data, fields: T.integerFields) {
            let shown = literal.count > 40 ? literal.prefix(40) + "…" : literal
            throw APIError.malformed(
                "Field \(field) must be an integer, not \(shown).", "\(field) alanı tam sayı olmalı, \(shown) değil.")
        }
        return value
    }

    private static func decoded<T: Decodable>(_ type: T.Type, _ data: Data) throws(APIError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            // Foundation names no field for a number out of its type's range; say what is wrong.
            throw unreadable(data)
        } catch let error as DecodingError {
            throw APIError.malformed(english(error), turkish(error))
        } catch {
            throw APIError.malformed("The body is not valid JSON.", "Gövde geçerli JSON değil.")
        }
    }

    /// What the decoder could not read, said as the core's JSON reader finds it: `1e400` is
    /// valid JSON, a number no `Double` holds.
    private static func unreadable(_ data: Data) -> APIError {
        let document: JSONValue
        do { document = try JSONValue(parsing: [UInt8](data)) } catch {
            guard error.problem == "a number out of range" else {
                return APIError.malformed("The body is not valid JSON.", "Gövde geçerli JSON değil.")
            }
            return APIError.malformed(
                "The number at byte \(error.offset) is out of range.",
                "\(error.offset). bayttaki sayı aralık dışında.")
        }
        guard case .object = document else {
            return APIError.malformed("The body is not a JSON object.", "Gövde bir JSON nesnesi değil.")
        }
        return APIError.malformed(
            "A number does not fit its field: out of its range, too small to tell from zero, or not an "
                + "integer where one is needed (hour, reminderSeconds).",
            "Bir sayı alanına sığmıyor: aralık dışında, sıfırdan ayırt edilemeyecek kadar küçük ya da tam sayı "
                + "gereken yerde (hour, reminderSeconds) tam sayı değil.")
    }

    private static func field(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// Whether `error` is about the body as a whole (`null`, `"x"`, `[]`), not one field.
    private static func isTopLevel(_ error: DecodingError) -> Bool {
        switch error {
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            return context.codingPath.isEmpty
        case .keyNotFound: return false
        @unknown default: return false
        }
    }

    private static func english(_ error: DecodingError) -> String {
        if isTopLevel(error) { return "The body is not a JSON object." }
        switch error {
        case .keyNotFound(let key, let context):
            return "Field \(field(context.codingPath + [key])) is required."
        case .valueNotFound(_, let context):
            return "Field \(field(context.codingPath)) must not be null."
        case .typeMismatch(let type, let context):
            return "Field \(field(context.codingPath)) has the wrong type; expected \(expected(type))."
        case .dataCorrupted(let context):
            return "Field \(field(context.codingPath)) cannot be read; expected \(expected(nil))."
        @unknown default:
            return "The body cannot be read."
        }
    }

    private static func turkish(_ error: DecodingError) -> String {
        if isTopLevel(error) { return "Gövde bir JSON nesnesi değil." }
        switch error {
        case .keyNotFound(let key, let context): return "\(field(context.codingPath + [key])) alanı gerekli."
        case .valueNotFound(_, let context): return "\(field(context.codingPath)) alanı null olamaz."
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return "\(field(context.codingPath)) alanı okunamıyor."
        @unknown default: return "Gövde okunamıyor."
        }
    }

    private static func expected(_ type: Any.Type?) -> String {
        switch type {
        case is UInt64.Type: "an integer 0...18446744073709551615"
        case is Int.Type: "an integer"
        case is Int64.Type: "an integer"
        case is String.Type: "a string"
        case is Double.Type: "a number"
        default: "a value of the documented type and range"
        }
    }
}
