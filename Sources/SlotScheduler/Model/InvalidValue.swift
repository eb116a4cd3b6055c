/// A value that makes no sense where it was given: what it was, where, and what was expected.
public struct InvalidValue: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the value was found, e.g. `stations[3].sockets[1].powerKW`.
    public var field: String
    public var value: String
    public var expected: String
    public init(field: String, value: String, expected: String) {
        self.field = field
        self.value = value
        self.expected = expected
    }
    public var description: String { "\(field): \(value.debugDescription) is not valid; expected \(expected)" }
}
