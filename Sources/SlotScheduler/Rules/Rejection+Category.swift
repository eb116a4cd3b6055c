extension Rejection.Reason {
    /// What kind of refusal a reason is, for a service to map to a status (HTTP in brackets).
    public enum Category: String, Hashable, Codable, Sendable, CaseIterable {
        /// The booking named does not exist (404).
        case notFound
        /// The request can never succeed as given: unknown station or socket, an hour, date,
        /// time, reminder or request id the rules refuse (422).
        case invalid
        /// The request clashes with the current state: slot taken, limit reached, request id used
        /// for another slot, already cancelled, past the cancellation deadline, released (409).
        case conflict
        /// The caller may not do this: another user's booking (403).
        case forbidden
    }

    /// The category of this reason; every reason has exactly one.
    public var category: Category {
        switch self {
        case .unknownBooking, .unknownHold: .notFound
        case .notOwner: .forbidden
        case .slotTaken, .noMatchingSocketFree, .userLimitReached, .conflictingRequestID, .alreadyCancelled,
            .cancellationCutoffPassed, .rescheduleCutoffPassed, .slotHasBookings, .released, .slotHeld,
            .holdExpired, .holdLimitReached, .checkInNotOpen, .checkInClosed, .timeZoneHasBookings, .catalogFixed,
            .notCheckedIn, .alreadyCheckedOut:
            .conflict
        case .unknownStation, .unknownSocket, .rescheduleToOtherStation, .invalidHour, .unsupportedDate,
            .invalidRequestID,
            .nonexistentLocalTime, .slotInPast, .tooSoon, .beyondHorizon, .socketClosed, .outsideOpeningHours,
            .invalidReminder, .reminderInPast, .invalidCatalog, .wrongAccessCode:
            .invalid
        }
    }
}
