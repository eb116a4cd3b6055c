import Foundation
import SlotScheduler

/// One OCPP-J message on the WebSocket: a call, its result, or its error
/// (OCPP 2.0.1 part 4, §4): `[2, id, action, payload]`, `[3, id, payload]`,
/// `[4, id, code, description, details]`.
public enum OCPPFrame: Hashable, Sendable {
    case call(id: String, action: String, payload: JSONValue)
    case result(id: String, payload: JSONValue)
    case error(id: String, code: OCPPErrorCode, description: String)

    /// The message id, which pairs a result or an error with its call.
    public var id: String {
        switch self {
        case .call(let id, _, _), .result(let id, _), .error(let id, _, _): id
        }
    }

    /// Reads one frame from a WebSocket text message. A payload that names a member twice is a
    /// FormatViolation: which value would count differs from one JSON reader to the next.
    public init(parsing text: String) throws(OCPPFrameError) {
        let bytes = Array(text.utf8)
        let frame: JSONValue
        do {
            frame = try JSONValue(parsing: bytes, repeatedKeys: .refuse)
        } catch {
            // Read again keeping the first value, only to answer on the frame's id.
            let id = (try? JSONValue(parsing: bytes)).flatMap(Self.messageID)
            throw OCPPFrameError(
                id: id, code: id == nil ? .rpcFrameworkError : .formatViolation,
                id == nil ? "not a JSON array" : error.problem)
        }
        guard case .array(let elements) = frame, elements.count >= 3, case .integer(let type) = elements[0] else {
            throw OCPPFrameError(id: nil, code: .rpcFrameworkError, "not an OCPP-J frame: [type, id, …]")
        }
        guard let id = Self.messageID(frame) else {
            throw OCPPFrameError(
                id: nil, code: .rpcFrameworkError, "the message id is not a string of 1 to 36 characters")
        }
        switch (type, elements.count) {
        case (2, 4):
            guard case .string(let action) = elements[2] else {
                throw OCPPFrameError(id: id, code: .rpcFrameworkError, "the action is not a string")
            }
            guard case .object = elements[3] else {
                throw OCPPFrameError(id: id, code: .formatViolation, "the payload of \(action) is not an object")
            }
            self = .call(id: id, action: action, payload: elements[3])
        case (3, 3):
            self = .result(id: id, payload: elements[2])
        case (4, 5):
            guard case .string(let code) = elements[2], case .string(let description) = elements[3] else {
                throw OCPPFrameError(id: id, code: .rpcFrameworkError, "the error code and description are not strings")
            }
            self = .error(id: id, code: OCPPErrorCode(rawValue: code) ?? .genericError, description: description)
        case (2, _), (3, _), (4, _):
            throw OCPPFrameError(
                id: id, code: .rpcFrameworkError, "message type \(type) with \(elements.count) elements")
        default:
            throw OCPPFrameError(id: id, code: .messageTypeNotSupported, "message type \(type)")
        }
    }

    /// The message id of a frame read as JSON, when it is a string of 1 to 36 characters.
    private static func messageID(_ frame: JSONValue) -> String? {
        guard case .array(let elements) = frame, elements.count >= 2, case .string(let id) = elements[1],
            !id.isEmpty, id.utf8.count <= 36
        else { return nil }
        return id
    }

    /// The frame as a WebSocket text message.
    public var text: String {
        let array: [JSONValue] =
            switch self {
            case .call(let id, let action, let payload): [.integer(2), .string(id), .string(action), payload]
            case .result(let id, let payload): [.integer(3), .string(id), payload]
            case .error(let id, let code, let description):
                [.integer(4), .string(id), .string(code.rawValue), .string(description), .object([:])]
            }
        return JSONValue.array(array).jsonText
    }

    /// A call of `message`'s action.
    public static func call<M: OCPPRequest>(id: String, _ message: M) -> Self {
        .call(id: id, action: M.action, payload: JSONValue(encoding: message))
    }

    /// The result of call `id`.
    public static func result<M: Encodable>(id: String, _ message: M) -> Self {
        .result(id: id, payload: JSONValue(encoding: message))
    }
}

/// The error codes of OCPP-J 2.0.1 (part 4, §4.3).
public enum OCPPErrorCode: String, Hashable, Sendable {
    case formatViolation = "FormatViolation"
    case genericError = "GenericError"
    case internalError = "InternalError"
    case messageTypeNotSupported = "MessageTypeNotSupported"
    case notImplemented = "NotImplemented"
    case notSupported = "NotSupported"
    case occurrenceConstraintViolation = "OccurrenceConstraintViolation"
    case propertyConstraintViolation = "PropertyConstraintViolation"
    case protocolError = "ProtocolError"
    case rpcFrameworkError = "RpcFrameworkError"
    case securityError = "SecurityError"
    case typeConstraintViolation = "TypeConstraintViolation"
}

/// A frame that cannot be read: what to answer, and why. `id` is `nil` when the frame has no
/// readable message id (OCPP-J then answers with the id `"-1"`).
public struct OCPPFrameError: Error, Hashable, Sendable, CustomStringConvertible {
    public var id: String?
    public var code: OCPPErrorCode
    public var message: String

    /// The longest `message` kept: OCPP-J's `errorDescription` is at most 255 characters. A
    /// longer one (a description quoting what a charge point sent, such as an action name of
    /// 60,000 characters) is cut there, ending in "…", so neither the CALLERROR nor a log line of
    /// it grows with the input.
    public static let maxMessageCharacters = 255

    public init(id: String?, code: OCPPErrorCode, _ message: String) {
        self.id = id
        self.code = code
        self.message =
            message.count <= Self.maxMessageCharacters
            ? message : String(message.prefix(Self.maxMessageCharacters - 1)) + "…"
    }

    /// The CALLERROR that answers it.
    public var answer: OCPPFrame { .error(id: id ?? "-1", code: code, description: message) }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension JSONValue {
    /// `value` as JSON. A message type of this module always encodes.
    init<T: Encodable>(encoding value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { preconditionFailure("an OCPP message that does not encode: \(T.self)") }
        self = json
    }

    /// The value read as `T`, or a FormatViolation naming `action`'s payload.
    func decoded<T: Decodable>(as type: T.Type, action: String, id: String) throws(OCPPFrameError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(jsonText.utf8))
        } catch let DecodingError.keyNotFound(key, _) {
            throw OCPPFrameError(
                id: id, code: .occurrenceConstraintViolation, "\(action): `\(key.stringValue)` is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw OCPPFrameError(
                id: id, code: .typeConstraintViolation,
                "\(action): `\(context.codingPath.map(\.stringValue).joined(separator: "."))` has the wrong type")
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            // Foundation's JSONDecoder says "not valid JSON", with no path, of a number its field
            // cannot hold (1.5 or 1e30 where an integer goes); the text is this module's own JSON.
            throw OCPPFrameError(
                id: id, code: .typeConstraintViolation,
                "\(action): a number does not fit its field (not an integer, or out of its range)")
        } catch let DecodingError.dataCorrupted(context) {
            throw OCPPFrameError(id: id, code: .propertyConstraintViolation, "\(action): \(context.debugDescription)")
        } catch {
            throw OCPPFrameError(id: id, code: .formatViolation, "\(action): \(error)")
        }
    }

    /// Compact JSON, keys sorted.
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
