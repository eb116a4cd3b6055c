import SlotScheduler
import SlotSchedulerOCPP

/// `GET /bookings/{id}`'s answer: the booking's fields, and with `--ocpp` what its charger was
/// told and answered (`charger`: `reservationId`, `station`, `evse`, `status`,
/// `displacedBecause`), when the bridge has anything for it.
struct BookingWithCharger: Encodable {
    var booking: Booking
    var charger: ChargerReservation?

    enum Key: String, CodingKey { case charger }

    func encode(to encoder: any Encoder) throws {
        try booking.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(charger, forKey: .charger)
    }
}
