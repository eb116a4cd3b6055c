/// Why a command was refused: a reason plus the details that say what and where.
///
/// A refused command changes nothing.
public struct Rejection: Error, Hashable, Codable, Sendable, CustomStringConvertible {
    public var reason: Reason
    public var slot: Slot?
    public var booking: BookingID?
    public var user: UserID?
    public var requestID: RequestID?
    /// The offending value, as text (an hour, an id, an offset).
    public var value: String?
    /// The relevant limit (user limit, number of bookings in the way).
    public var limit: Int?
    /// The relevant instant (slot start, earliest allowed start, cancellation deadline).
    public var instant: Instant?
    /// The relevant date (last bookable date).
    public var date: LocalDate?
    /// The IANA time zone of the station, when ``instant`` is set: messages give the instant in
    /// this zone's local time.
    public var timeZone: String?
    /// The station's offset from UTC at ``instant``, in seconds.
    public var utcOffsetSeconds: Int?

    public init(
        _ reason: Reason, slot: Slot? = nil, booking: BookingID? = nil, user: UserID? = nil,
        requestID: RequestID? = nil, value: String? = nil, limit: Int? = nil, instant: Instant? = nil,
        date: LocalDate? = nil
    ) {
        self.reason = reason
        self.slot = slot
        self.booking = booking
        self.user = user
        self.requestID = requestID
        self.value = value
        self.limit = limit
        self.instant = instant
        self.date = date
    }

    /// Every reason a command can be refused for.
    public enum Reason: String, Hashable, Codable, Sendable, CaseIterable, Comparable {
        case unknownStation
        case unknownSocket
        case invalidHour
        /// A date outside ``LocalDate/supportedRange`` (years 1900–2399).
        case unsupportedDate
        /// A request id that breaks the ``IdentifierRule`` (empty, too long, surrounding
        /// whitespace, control characters).
        case invalidRequestID
        case nonexistentLocalTime
        case slotInPast
        case tooSoon
        case beyondHorizon
        case socketClosed
        case outsideOpeningHours
        case slotTaken
        /// Every socket of the station that matches an ``AnySocketRequest`` is taken or closed at
        /// that hour.
        case noMatchingSocketFree
        case userLimitReached
        case conflictingRequestID
        case invalidReminder
        case reminderInPast
        case unknownBooking
        case notOwner
        case alreadyCancelled
        case cancellationCutoffPassed
        /// The booking starts too soon to be moved (``Policy/rescheduleCutoffSeconds``).
        case rescheduleCutoffPassed
        /// A booking moves only to another hour, date or socket of its own station.
        case rescheduleToOtherStation
        case slotHasBookings
        /// The booking, or the date a change names, was released by
        /// ``Ledger/releaseDays(before:at:)``: no longer held in memory (the journal keeps it).
        case released
        /// Another user holds the slot, or the user holds it already (see ``Hold``).
        case slotHeld
        /// The hold to confirm or release expired before `now` (its slot may be taken by now).
        case holdExpired
        /// The user already has ``Policy/maxHoldsPerUser`` live holds.
        case holdLimitReached
        /// The user holds no such slot: never held it, or already released it.
        case unknownHold
        /// The booking's check-in window has not opened yet (``Policy/earlyCheckInSeconds``).
        case checkInNotOpen
        /// The booking's check-in window closed (``Policy/noShowGraceSeconds``): it is a no-show.
        case checkInClosed
        /// A catalog change's station list is invalid; ``value`` says which field and why.
        case invalidCatalog
        /// A catalog change moves a station that holds bookings to another time zone.
        case timeZoneHasBookings
        /// A ``Scheduler`` serves one catalog for its life: a catalog change goes to a ``Ledger``,
        /// a store, or ``Scheduler/changingCatalog(_:onBookings:at:)``, which builds the next one.
        case catalogFixed
        /// Check-out of a booking that was never checked in (``Ledger/checkOut(_:by:at:)``).
        case notCheckedIn
        /// The booking was checked out already: its session ended (``Booking/Status/fulfilled``).
        case alreadyCheckedOut
        /// A check-in did not present the code its socket carries (``Socket/accessCode``); the
        /// refusal never says the right one.
        case wrongAccessCode

        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    public var description: String { message(in: .english) }
}
