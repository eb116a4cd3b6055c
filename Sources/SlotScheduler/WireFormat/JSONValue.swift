import Foundation

/// Any JSON value: what the simulator's adapters template and read (SlotSimulation), and an
/// OCPP frame's payload before it is read as its action's message (SlotSchedulerOCPP). A whole
/// number that fits `Int64` is an ``integer(_:)``, so ids keep every digit.
public enum JSONValue: Codable, Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value at RFC 6901 pointer `pointer` (`""` is the whole value), or `nil`.
    public func at(_ pointer: String) -> JSONValue? {
        guard !pointer.isEmpty else { return self }
        guard pointer.hasPrefix("/") else { return nil }
        var value = self
        for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = Self.unescape(token)
            switch value {
            case .object(let object):
                guard let next = object[key] else { return nil }
                value = next
            case .array(let array):
                guard let index = Int(key), array.indices.contains(index) else { return nil }
                value = array[index]
            default:
                return nil
            }
        }
        return value
    }

    /// A JSON pointer's reference token as a key: `~1` is `/` and `~0` is `~` (RFC 6901, read
    /// left to right, so `~01` is `~1`).
    static func unescape(_ token: Substring) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        var key = ""
        var characters = token.makeIterator()
        while let character = characters.next() {
            guard character == "~" else {
                key.append(character)
                continue
            }
            switch characters.next() {
            case "1": key.append("/")
            case "0": key.append("~")
            case let other?: key += "~\(other)"
            case nil: key.append("~")
            }
        }
        return key
    }

    /// The value as text: a string as it is, a whole number without a fraction, others as JSON.
    public var text: String? {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .number(let value) where value.rounded() == value && abs(value) < 1e15: String(Int64(value))
        case .number(let value): String(value)
        case .bool(let value): String(value)
        default: nil
        }
    }
}
