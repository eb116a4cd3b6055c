import SlotScheduler

extension Snapshot {
    /// The events that rebuild this snapshot on an empty scheduler: the overrides, then each
    /// booking in id order, released right after it is made when it is no longer active (a
    /// later booking may hold the same slot).
    ///
    /// The same order as the core's own snapshot replay; kept here because that one is internal.
    var replayEvents: [Event] {
        var events = overrides.map { Event.availabilityChanged($0, at: Instant(secondsSinceEpoch: 0)) }
        events.reserveCapacity(overrides.count + bookings.count)
        for booking in bookings {
            var made = booking
            made.status = .active
            events.append(.reserved(made))
            switch booking.status {
            case .active: break
            case .cancelled: events.append(.cancelled(booking.id, user: booking.user, at: booking.createdAt))
            case .displaced: events.append(.displaced(booking.id, user: booking.user, at: booking.createdAt))
            }
        }
        return events
    }
}
