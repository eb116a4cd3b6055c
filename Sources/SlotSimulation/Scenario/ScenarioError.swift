import Foundation
import SlotScheduler

/// Why a scenario file was refused: the file, where in it (a JSON path such as
/// `stations[2].sockets[0].powerKW`), the value found and what was expected.
public struct ScenarioError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var path: String
    public var value: String
    public var expected: String

    public init(file: String, path: String, value: String, expected: String) {
        self.file = file
        self.path = path
        self.value = value
        self.expected = expected
    }

    /// One line: the value found is cut at 200 characters (a name of a million characters is
    /// not echoed whole), its control characters escaped.
    public var description: String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                escaped += scalar.escaped(asASCII: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        let found = escaped.count > 200 ? escaped.prefix(200) + "… (\(value.utf8.count) bytes)" : escaped
        return "\(file): \(path.isEmpty ? "(document)" : path): found \(found); expected \(expected)"
    }
}

/// A file could not be written or read for a reason other than its content.
public struct SimulationIOError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }
    public var description: String { "\(path): \(problem)" }
}

enum JSONPath {
    static func string(_ path: [any CodingKey]) -> String {
        var result = ""
        for key in path {
            if let i = key.intValue {
                result += "[\(i)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return result
    }

    /// The JSON text of the value at `path` in `document`, shortened.
    static func value(at path: [any CodingKey], in document: Any?) -> String {
        var node = document
        for key in path {
            if let i = key.intValue, let array = node as? [Any] {
                node = i < array.count ? array[i] : nil
            } else if let object = node as? [String: Any] {
                node = object[key.stringValue]
            } else {
                node = nil
            }
        }
        guard let node else { return "nothing" }
        return render(node)
    }

    static func render(_ node: Any) -> String {
        let text: String
        if node is NSNull {
            text = "null"
        } else if let s = node as? String {
            text = s.debugDescription
        } else if let n = node as? NSNumber {
            text = n.stringValue
        } else if JSONSerialization.isValidJSONObject(node),
            let data = try? JSONSerialization.data(withJSONObject: node, options: [.sortedKeys]),
            let s = String(data: data, encoding: .utf8)
        {
            text = s
        } else {
            text = String(describing: node)
        }
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }

    /// `error` in a reader's words: the field's path and what it needed (not the decoder's
    /// internals: `CodingKeys(stringValue: …)`).
    static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not valid JSON" }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(string(context.codingPath + [key])): a required field is missing"
        case .valueNotFound(let type, let context):
            return "\(location(context)): null where \(typeName(type)) is needed"
        case .typeMismatch(let type, let context): return "\(location(context)): not \(typeName(type))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "not valid JSON, or a number its field cannot hold"
                : "\(location(context)): \(context.debugDescription)"
        @unknown default: return "not readable"
        }
    }

    private static func location(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "the document" : string(context.codingPath)
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is UInt64.Type, is UInt.Type: return "a non-negative integer"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }
}
