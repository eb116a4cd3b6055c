/// A reservation of one slot by one user.
public struct Booking: Hashable, Codable, Sendable, Identifiable {
    public var id: BookingID
    public var slot: Slot
    public var user: UserID
    /// The instant the slot starts; the booking ends one hour later.
    public var start: Instant
    /// The `now` of the reservation that created it.
    public var createdAt: Instant
    public var requestID: RequestID?
    /// How long before ``start`` the user wants a reminder, in seconds.
    public var reminderOffsetSeconds: Int64?
    public var status: Status
    /// When its owner checked it in, if they did (see ``Ledger/checkIn(_:by:accessCode:at:)``); `nil` in the
    /// `reserved` event that made it.
    public var checkedInAt: Instant?
    /// When its owner checked it out, ending the session it checked in for (see
    /// ``Ledger/checkOut(_:by:at:)``); `nil` until then. The booking is then ``Status/fulfilled``.
    public var checkedOutAt: Instant?

    public enum Status: String, Hashable, Codable, Sendable, BitwiseCopyable {
        case active, cancelled, displaced
        /// Checked in, then checked out by its owner: the session ended, its slot freed.
        case fulfilled
    }

    public init(
        id: BookingID, slot: Slot, user: UserID, start: Instant, createdAt: Instant, requestID: RequestID? = nil,
        reminderOffsetSeconds: Int64? = nil, status: Status = .active
    ) {
        self.id = id
        self.slot = slot
        self.user = user
        self.start = start
        self.createdAt = createdAt
        self.requestID = requestID
        self.reminderOffsetSeconds = reminderOffsetSeconds
        self.status = status
        self.checkedInAt = nil
        self.checkedOutAt = nil
    }

    /// The length of every slot in seconds: one hour.
    public static let durationSeconds: Int64 = 3_600

    /// Whether it was checked out (``checkedOutAt``, ``Status/fulfilled``).
    var isCheckedOut: Bool { checkedOutAt != nil || status == .fulfilled }

    /// The instant the slot ends: one hour after ``start``.
    public var end: Instant {
        Instant(secondsSinceEpoch: start.secondsSinceEpoch.saturatingAdding(Self.durationSeconds))
    }

    /// Whether a slot starting at `start` (seconds since the epoch) has not ended at `now`: the one
    /// definition of "upcoming" that the per-user limit counts, in every store and checker.
    @inline(__always)
    public static func isUpcoming(start: Int64, at now: Int64) -> Bool {
        start.saturatingAdding(durationSeconds) > now
    }

    /// Whether the booking still counts against its user's limit at `now`: active and not yet ended.
    public func isUpcoming(at now: Instant) -> Bool {
        status == .active && Self.isUpcoming(start: start.secondsSinceEpoch, at: now.secondsSinceEpoch)
    }

    /// Whether it is a no-show at `now`: active, not checked in, and `now` at or after its start
    /// + `grace` (``Policy/noShowGraceSeconds``), when check-in closed. Decided by `now` alone;
    /// nothing is written. With the whole hour as grace, a booking not checked in is a no-show
    /// exactly once it has ended.
    public func isNoShow(at now: Instant, grace: Int64) -> Bool {
        status == .active && checkedInAt == nil
            && Self.isNoShow(start: start.secondsSinceEpoch, at: now.secondsSinceEpoch, grace: grace)
    }

    /// Whether a booking starting at `start` and not checked in is a no-show at `now`: the one
    /// definition every store and checker uses.
    @inline(__always)
    public static func isNoShow(start: Int64, at now: Int64, grace: Int64) -> Bool {
        start.saturatingAdding(grace) <= now
    }

    /// When its reminder fires, if it asked for one.
    public var reminderAt: Instant? {
        reminderOffsetSeconds.map { Instant(secondsSinceEpoch: start.secondsSinceEpoch.saturatingSubtracting($0)) }
    }
}

/// What a reservation gave: the booking, and whether it is new or a replay.
public struct Reservation: Hashable, Sendable {
    /// The booking made, or for a replay the one the first request made, in its current status
    /// (a replay of a booking since cancelled is cancelled, not new).
    public var booking: Booking
    /// Whether the request repeated an earlier request id of the same user: nothing new was
    /// booked. A service answers 201 for a new booking and 200 for a replay.
    public var isReplay: Bool

    public init(booking: Booking, isReplay: Bool) {
        self.booking = booking
        self.isReplay = isReplay
    }
}

/// A request to book one slot.
public struct ReservationRequest: Hashable, Codable, Sendable {
    public var slot: Slot
    public var user: UserID
    /// Idempotency key; see ``RequestID``.
    public var requestID: RequestID?
    /// Ask for a reminder this long before the start.
    public var reminder: Duration?

    public init(slot: Slot, user: UserID, requestID: RequestID? = nil, reminder: Duration? = nil) {
        self.slot = slot
        self.user = user
        self.requestID = requestID
        self.reminder = reminder
    }

    var reminderSeconds: Int64? { reminder.map { $0.components.seconds } }
}

/// A reminder that falls due.
public struct Reminder: Hashable, Codable, Sendable {
    public var booking: BookingID
    public var user: UserID
    public var slot: Slot
    public var fireAt: Instant

    public init(booking: BookingID, user: UserID, slot: Slot, fireAt: Instant) {
        self.booking = booking
        self.user = user
        self.slot = slot
        self.fireAt = fireAt
    }
}
