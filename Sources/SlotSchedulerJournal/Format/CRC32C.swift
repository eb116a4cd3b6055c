/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every record.
///
/// Table-driven, one byte per step: records are a few hundred bytes, so this is far cheaper
/// than the `fdatasync` that follows. Check value: `CRC32C.checksum("123456789")` is 0xE3069283.
enum CRC32C {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        return c
    }

    /// Continues a checksum over `bytes`; start from 0.
    /// - Complexity: O(n).
    static func update<C: Collection<UInt8>>(_ crc: UInt32, _ bytes: C) -> UInt32 {
        var c = ~crc
        table.withUnsafeBufferPointer { t in
            for byte in bytes { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }

    static func checksum<C: Collection<UInt8>>(_ bytes: C) -> UInt32 { update(0, bytes) }
}
