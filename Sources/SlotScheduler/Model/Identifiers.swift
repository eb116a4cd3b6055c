// Each identifier encodes as its bare raw value through the standard library's Codable
// support for RawRepresentable types.

/// Identifies a station. Any non-empty string without surrounding whitespace.
public struct StationID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// Identifies a socket within its station ("1", "A", "left").
public struct SocketID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// Identifies a user: your user table's numeric key.
///
/// A fixed-size integer keeps the per-user limit check free of string hashing.
public struct UserID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByIntegerLiteral, CustomStringConvertible
{
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt64) { self.rawValue = value }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// Identifies a booking. Assigned by the scheduler, never reused.
public struct BookingID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// A client-chosen idempotency key, unique per user.
///
/// Repeating a reservation with the same key returns the booking it made; the same key with a
/// different request is refused with ``Rejection/Reason/conflictingRequestID``.
public struct RequestID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// A plug standard ("Type 2", "CCS", "CHAdeMO"). Compared case-insensitively via ``normalized``.
public struct ConnectorType: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
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
