import SlotScheduler

/// A store's final bookings in id order, looked up by binary search: the one copy the checks
/// keep (a store that answers in id order, as ``BookingService/allBookingsByID()`` does, is not
/// copied at all), instead of a dictionary and a sorted copy beside the list.
struct BookingsByID {
    /// Every booking, by id (a repeated id, which a broken store could return, keeps its order).
    let all: [Booking]

    init(_ bookings: [Booking]) {
        let ordered = zip(bookings, bookings.dropFirst()).allSatisfy { $0.id.rawValue <= $1.id.rawValue }
        all =
            ordered
            ? bookings
            : bookings.enumerated().sorted { ($0.element.id.rawValue, $0.offset) < ($1.element.id.rawValue, $1.offset) }
                .map(\.element)
    }

    /// The first booking with `id`, if any.
    /// - Complexity: O(log n).
    subscript(id id: UInt64) -> Booking? {
        var low = 0
        var high = all.count
        while low < high {
            let mid = (low + high) / 2
            if all[mid].id.rawValue < id { low = mid + 1 } else { high = mid }
        }
        return low < all.count && all[low].id.rawValue == id ? all[low] : nil
    }

    /// The first booking of each id, in id order.
    var distinct: some Sequence<Booking> {
        all.enumerated().lazy.filter { i, b in i == 0 || all[i - 1].id != b.id }.map(\.element)
    }
}
