// Each identifier encodes as its bare raw value through the standard library's Codable
// support for RawRepresentable types, and converts to and from text (LosslessStringConvertible):
// `RequestID("r1")`, `UserID("17")`, `String(id)`. The labelled initializers are
// @_disfavoredOverload so that an unlabelled reference such as `.map(RequestID.init)` means the
// text conversion instead of being ambiguous.

/// Identifies a station. ``Catalog`` accepts an id that follows the ``IdentifierRule``: 1 to 128
/// UTF-8 bytes, no surrounding whitespace, no control characters.
public struct StationID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, LosslessStringConvertible
{
    public var rawValue: String
    @_disfavoredOverload public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    @_disfavoredOverload public init(stringLiteral value: String) { self.rawValue = value }
    /// Compared, hashed and ordered by exact spelling (``IdentifierRule/same(_:_:)``).
    public static func == (lhs: Self, rhs: Self) -> Bool { IdentifierRule.same(lhs.rawValue, rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { IdentifierRule.hash(rawValue, into: &hasher) }
    public static func < (lhs: Self, rhs: Self) -> Bool { IdentifierRule.precedes(lhs.rawValue, rhs.rawValue) }
    public var description: String { rawValue }
}

/// Identifies a socket within its station ("1", "A", "left"); follows the ``IdentifierRule``.
public struct SocketID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, LosslessStringConvertible
{
    public var rawValue: String
    @_disfavoredOverload public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    @_disfavoredOverload public init(stringLiteral value: String) { self.rawValue = value }
    /// Compared, hashed and ordered by exact spelling (``IdentifierRule/same(_:_:)``).
    public static func == (lhs: Self, rhs: Self) -> Bool { IdentifierRule.same(lhs.rawValue, rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { IdentifierRule.hash(rawValue, into: &hasher) }
    public static func < (lhs: Self, rhs: Self) -> Bool { IdentifierRule.precedes(lhs.rawValue, rhs.rawValue) }
    public var description: String { rawValue }
}

/// Identifies a user: your user table's numeric key.
///
/// A fixed-size integer keeps the per-user limit check free of string hashing.
public struct UserID: RawRepresentable, Hashable, Comparable, Codable, Sendable, BitwiseCopyable,
    ExpressibleByIntegerLiteral, LosslessStringConvertible
{
    public var rawValue: UInt64
    @_disfavoredOverload public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    @_disfavoredOverload public init(integerLiteral value: UInt64) { self.rawValue = value }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
    /// Parses decimal digits only (no sign, no spaces), as ``description`` prints them.
    public init?(_ description: String) {
        guard let value = parseDecimalID(description) else { return nil }
        self.rawValue = value
    }
}

/// Identifies a booking. Assigned by the scheduler, never reused.
public struct BookingID: RawRepresentable, Hashable, Comparable, Codable, Sendable, BitwiseCopyable,
    LosslessStringConvertible
{
    public var rawValue: UInt64
    @_disfavoredOverload public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
    /// Parses decimal digits only (no sign, no spaces), as ``description`` prints them.
    public init?(_ description: String) {
        guard let value = parseDecimalID(description) else { return nil }
        self.rawValue = value
    }
}

/// A client-chosen idempotency key, unique per user. A reservation whose id breaks the
/// ``IdentifierRule`` (more than 128 UTF-8 bytes, surrounding whitespace, control characters) is
/// refused with ``Rejection/Reason/invalidRequestID``.
///
/// Repeating a reservation with the same key returns the booking it made; the same key with a
/// different request is refused with ``Rejection/Reason/conflictingRequestID``.
public struct RequestID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, LosslessStringConvertible
{
    public var rawValue: String
    @_disfavoredOverload public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    @_disfavoredOverload public init(stringLiteral value: String) { self.rawValue = value }
    /// Compared, hashed and ordered by exact spelling (``IdentifierRule/same(_:_:)``).
    public static func == (lhs: Self, rhs: Self) -> Bool { IdentifierRule.same(lhs.rawValue, rhs.rawValue) }
    public func hash(into hasher: inout Hasher) { IdentifierRule.hash(rawValue, into: &hasher) }
    public static func < (lhs: Self, rhs: Self) -> Bool { IdentifierRule.precedes(lhs.rawValue, rhs.rawValue) }
    public var description: String { rawValue }
}

/// A plug standard ("Type 2", "CCS", "CHAdeMO"). Compared case-insensitively via ``normalized``.
public struct ConnectorType: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral,
    LosslessStringConvertible
{
    public var rawValue: String
    @_disfavoredOverload public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    @_disfavoredOverload public init(stringLiteral value: String) { self.rawValue = value }
    public static let type2: Self = "Type 2"
    public static let ccs: Self = "CCS"
    public static let chademo: Self = "CHAdeMO"
    public static let type1: Self = "Type 1"
    /// Lowercased, without spaces, dashes or underscores: "type-2" matches "Type 2".
    public var normalized: String {
        String(rawValue.lowercased().unicodeScalars.filter { $0 != " " && $0 != "-" && $0 != "_" }.map(Character.init))
    }
    public var description: String { rawValue }
}

/// A `UInt64` from 1 to 20 ASCII decimal digits, or `nil`.
private func parseDecimalID(_ text: String) -> UInt64? {
    guard (1...20).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
    return UInt64(text)
}
