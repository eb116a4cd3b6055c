extension Snapshot {
    /// A snapshot with the holds that still have their slot (and reschedule request ids); a
    /// separate initializer, so code built against the others still links.
    public init(
        bookings: [Booking], overrides: [AvailabilityChange], rescheduleRequests: [RememberedReschedule] = [],
        holds: [Hold]
    ) {
        self.init(bookings: bookings, overrides: overrides, rescheduleRequests: rescheduleRequests)
        self.holds = holds
    }
}
