/// A set of local hours 0–23, stored as a 24-bit mask.
///
/// Encoded as a sorted array of hours, e.g. `[8, 9, 10]`.
public struct HourSet: Hashable, Sendable, Sequence, CustomStringConvertible {
    public private(set) var mask: UInt32

    public init(mask: UInt32) { self.mask = mask & 0xFF_FFFF }

    /// Creates a set from hours, refusing any hour outside 0–23.
    public init<S: Sequence<Int>>(_ hours: S) throws(InvalidValue) {
        var mask: UInt32 = 0
        for hour in hours {
            guard (0...23).contains(hour) else {
                throw InvalidValue(
                    field: "hour", value: String(hour), expected: "an hour 0...23", turkish: "0...23 arası bir saat")
            }
            mask |= 1 << UInt32(hour)
        }
        self.mask = mask
    }

    /// The hours `range.lowerBound ..< range.upperBound`, clamped to 0–24.
    public init(_ range: Range<Int>) {
        var mask: UInt32 = 0
        for hour in range.clamped(to: 0..<24) { mask |= 1 << UInt32(hour) }
        self.mask = mask
    }

    public static let allDay = HourSet(mask: 0xFF_FFFF)
    public static let closed = HourSet(mask: 0)

    public var isEmpty: Bool { mask == 0 }
    public var count: Int { mask.nonzeroBitCount }
    public func contains(_ hour: Int) -> Bool { (0...23).contains(hour) && mask & (1 << UInt32(hour)) != 0 }

    public func makeIterator() -> some IteratorProtocol<Int> {
        (0..<24).lazy.filter { self.mask & (1 << UInt32($0)) != 0 }.makeIterator()
    }

    public var description: String { "[" + map(String.init).joined(separator: ",") + "]" }
}

extension HourSet: Codable {
    public init(from decoder: any Decoder) throws {
        let hours = try decoder.singleValueContainer().decode([Int].self)
        do { try self.init(hours) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(self))
    }
}
