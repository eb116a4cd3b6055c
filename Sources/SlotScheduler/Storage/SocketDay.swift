/// One socket on one date in a ``SlotBook``: its open hours and its taken hours in one 64-bit
/// word, so the hot check reads 8 bytes.
///
/// Bits 0–23 are the open hours (bit *h* for the hour starting at local *h*:00), bits 32–55 the
/// taken hours, the same bit positions shifted by ``takenShift``. Bit 24, ``heldFlag``, is set
/// once any hour of the socket-day has been held.
struct SocketDay: Sendable, Equatable {
    var bits: UInt64

    /// The open-hours bits.
    static let openMask: UInt64 = 0xFF_FFFF
    /// How far a taken hour's bit sits above its open-hour bit.
    static let takenShift: UInt64 = 32
    /// The taken-hours bits.
    static let takenMask: UInt64 = openMask << takenShift
    /// Set when a hold first takes an hour of this socket-day, and kept while its day block
    /// lives: without it a taken hour is certainly a booking's, known without reading its cell
    /// (a random read that missed the cache on about a third of the attempts of a filling book).
    /// A flag left set after the holds end costs that read again, never a wrong answer.
    static let heldFlag: UInt64 = 1 << 24

    /// A day open in the hours of `open` (an ``HourSet`` mask) with nothing taken.
    @inline(__always)
    init(open: UInt32) { bits = UInt64(open) & Self.openMask }

    /// The open hours as an ``HourSet`` mask.
    @inline(__always)
    var openHours: UInt32 { UInt32(truncatingIfNeeded: bits & Self.openMask) }

    @inline(__always)
    func isOpen(_ hour: Int32) -> Bool { bits & (1 << UInt64(truncatingIfNeeded: hour)) != 0 }

    @inline(__always)
    func isTaken(_ hour: Int32) -> Bool { bits & (1 << (Self.takenShift &+ UInt64(truncatingIfNeeded: hour))) != 0 }

    /// Whether a hold may sit in a taken hour: if not, every taken hour is a booking's.
    @inline(__always)
    var mayHoldHours: Bool { bits & Self.heldFlag != 0 }

    /// Records that a hold takes an hour of this socket-day.
    @inline(__always)
    mutating func markHeld() { bits |= Self.heldFlag }

    /// Replaces the open hours; the taken hours and ``heldFlag`` stay.
    @inline(__always)
    mutating func setOpenHours(_ mask: UInt32) { bits = (bits & ~Self.openMask) | (UInt64(mask) & Self.openMask) }

    /// Marks `hour` taken or free.
    @inline(__always)
    mutating func setTaken(_ hour: Int32, _ taken: Bool) {
        let bit: UInt64 = 1 << (Self.takenShift &+ UInt64(truncatingIfNeeded: hour))
        bits = taken ? bits | bit : bits & ~bit
    }
}
