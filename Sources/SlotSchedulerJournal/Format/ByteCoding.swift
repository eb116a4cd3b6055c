/// Little-endian fixed-width integers and length-prefixed UTF-8 strings.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { for i in 0..<2 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    /// A string as a 32-bit byte count and its UTF-8 bytes.
    mutating func string(_ s: String) {
        let utf8 = s.utf8
        u32(UInt32(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8)
    }
}

/// Why bytes could not be decoded: what was expected, at which offset of the record.
struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    var offset: Int
    var problem: String
    var description: String { "\(problem) at byte \(offset) of the record" }
}

/// Reads what ``ByteWriter`` wrote, refusing (never trapping) on short or malformed input.
struct ByteReader {
    let bytes: ArraySlice<UInt8>
    private(set) var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var offset: Int { position - bytes.startIndex }
    var isAtEnd: Bool { position == bytes.endIndex }

    func fail(_ problem: String) -> DecodeError { DecodeError(offset: offset, problem: problem) }

    private mutating func take(_ n: Int, _ what: String) throws(DecodeError) -> ArraySlice<UInt8> {
        guard n >= 0, bytes.endIndex - position >= n else { throw fail("\(what) needs \(n) bytes") }
        defer { position += n }
        return bytes[position..<position + n]
    }

    private mutating func unsigned(_ n: Int, _ what: String) throws(DecodeError) -> UInt64 {
        var v: UInt64 = 0
        for (i, byte) in try take(n, what).enumerated() { v |= UInt64(byte) << (8 * UInt64(i)) }
        return v
    }

    mutating func u8(_ what: String) throws(DecodeError) -> UInt8 { UInt8(try unsigned(1, what)) }
    mutating func u16(_ what: String) throws(DecodeError) -> UInt16 { UInt16(try unsigned(2, what)) }
    mutating func u32(_ what: String) throws(DecodeError) -> UInt32 { UInt32(try unsigned(4, what)) }
    mutating func u64(_ what: String) throws(DecodeError) -> UInt64 { try unsigned(8, what) }
    mutating func i32(_ what: String) throws(DecodeError) -> Int32 { Int32(bitPattern: try u32(what)) }
    mutating func i64(_ what: String) throws(DecodeError) -> Int64 { Int64(bitPattern: try u64(what)) }

    mutating func string(_ what: String) throws(DecodeError) -> String {
        let count = Int(try u32("\(what) length"))
        let raw = try take(count, what)
        guard let s = String(validating: raw, as: UTF8.self) else { throw fail("\(what) is not UTF-8") }
        return s
    }
}
