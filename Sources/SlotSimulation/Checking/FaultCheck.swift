import SlotScheduler

/// I20 `noBookingOnAFault`: when the run ends, no active booking is on an hour a charger fault
/// (``Scenario/stationEvents``) left closed. Both modes read the final bookings through it.
extension PreparedScenario {
    /// Whether `slot` is one of the hours the faults leave closed at the end of the run.
    func isFaulted(_ slot: Slot) -> Bool {
        guard !faultedCells.isEmpty, let ref = try? rules.catalog.resolve(slot) else { return false }
        let offset = ref.day &- firstDay
        guard offset >= 0, Int(offset) < days else { return false }
        let cell = grid.cell(socket: ref.socket, dayOffset: offset, hour: ref.hour)
        var (low, high) = (0, faultedCells.count)
        while low < high {
            let mid = (low + high) / 2
            if faultedCells[mid] < cell { low = mid + 1 } else { high = mid }
        }
        return low < faultedCells.count && faultedCells[low] == cell
    }

    /// The message of each active booking on a faulted hour, by booking id.
    func bookingsOnFaults(_ bookings: some Sequence<(id: BookingID, slot: Slot, status: Booking.Status)>) -> [String] {
        guard !faultedCells.isEmpty else { return [] }
        return bookings.filter { $0.status == .active && isFaulted($0.slot) }.sorted { $0.id < $1.id }.map {
            "booking \($0.id) is active on \($0.slot), an hour a charger fault closed: it should have been displaced"
        }
    }
}
