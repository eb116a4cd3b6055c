#if Observability  // built with `--traits Observability` only (Package.swift)
/// The calls of a `BookingService`, one name each, as metrics, spans and logs
/// name them (`slotscheduler.reserve`, …).
public enum StoreOperation: String, Sendable, CaseIterable {
    case reserve
    case reserveAnySocket = "reserve_any_socket"
    case hold
    case confirm
    case releaseHold = "release_hold"
    case reschedule
    case cancel
    case checkIn = "check_in"
    case checkOut = "check_out"
    case changeAvailability = "change_availability"
    case changeCatalog = "change_catalog"
    case relocate
    case bookings
    case booking
    case stationBookings = "station_bookings"
    case dayView = "day_view"
    case holds
    case remindersDue = "reminders_due"
    case earliestFreeSlots = "earliest_free_slots"
    case allBookings = "all_bookings"

    /// The span's name: `slotscheduler.` and the operation.
    public var spanName: String { "slotscheduler.\(rawValue)" }
}
#endif
