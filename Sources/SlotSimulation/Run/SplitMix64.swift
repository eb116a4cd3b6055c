/// A seeded 64-bit generator (Steele, Lea and Flood's SplitMix64): every random choice of a
/// deterministic run comes from one of these, so a run is reproducible from its seed alone.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<n` for `n > 0` (multiply-shift; the bias is below 2⁻⁴⁰ for the sizes used here).
    @inline(__always)
    public mutating func below(_ n: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(max(n, 1))).high)
    }

    /// `true` with probability `p`.
    @inline(__always)
    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) * 0x1p-53 < p }
}
