/// A value that makes no sense where it was given: what it was, where, and what was expected.
public struct InvalidValue: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the value was found, e.g. `stations[3].sockets[1].powerKW`.
    public var field: String
    public var value: String
    /// What was expected instead, in English.
    public var expected: String
    /// What was expected instead, in Turkish; `nil` when only the English text exists (a value
    /// found by a layer that writes English only), and ``message(in:)`` then uses ``expected``.
    public var expectedInTurkish: String?

    public init(field: String, value: String, expected: String, turkish: String? = nil) {
        self.field = field
        self.value = value
        self.expected = expected
        self.expectedInTurkish = turkish
    }
    public var description: String { "\(field): \(value.debugDescription) is not valid; expected \(expected)" }
}
