import SlotScheduler

/// What a booking's charger was told and answered: shown on the booking (the example service's
/// `GET /bookings/{id}` has it as `charger`).
public struct ChargerReservation: Hashable, Codable, Sendable {
    /// The `ReserveNow` id: stable for a booking (``reservationID(of:)``).
    public var reservationId: Int64
    public var station: StationID
    public var evse: EVSEAddress?
    public var status: Status
    /// Why the booking was displaced by the bridge (`socketFaulted`), if it was.
    public var displacedBecause: String?

    public enum Status: String, Hashable, Codable, Sendable {
        /// `ReserveNow` sent, not answered yet (or sent again after a reconnect).
        case sent
        /// The station's answers to `ReserveNow`.
        case accepted, faulted, occupied, rejected, unavailable
        /// The call failed (a CALLERROR), or the station was gone before it answered.
        case failed
        /// `CancelReservation` sent: the booking was cancelled, moved or displaced.
        case cancelled
        /// The station's `ReservationStatusUpdate`.
        case expired, removed
        /// The user's token was presented with the booking checked in: the reservation is used.
        case used
        /// Never sent: displaced before its lead.
        case none
    }

    /// The `ReserveNow` id of a booking: its id when that fits in 31 bits (PostgreSQL's ids
    /// do), else its bits folded to 31 (many charge points keep ids as 32-bit integers).
    public static func reservationID(of booking: BookingID) -> Int64 {
        var raw = booking.rawValue
        if raw <= UInt64(Int32.max) { return Int64(raw) }
        raw ^= raw >> 31
        raw ^= raw >> 62
        return Int64(raw & UInt64(Int32.max))
    }
}
