/// A slot kept for one user for a short time (``Policy/holdSeconds``) while they finish booking
/// it: nobody else can book or hold it until the hold is confirmed, released or expires.
///
/// A hold lives while `now` is before ``expiresAt``; expiry is decided by the `now` of each later
/// call, never by a timer (an expired hold is treated as free by every call that sees it
/// expired). While it lives it counts against its user's upcoming-bookings limit, and the user
/// may have at most ``Policy/maxHoldsPerUser`` live holds. ``Ledger/confirm(_:by:at:)`` turns it
/// into a booking in one atomic step.
public struct Hold: Hashable, Sendable {
    public var slot: Slot
    public var user: UserID
    /// The instant the slot starts.
    public var start: Instant
    /// The `now` of the hold.
    public var createdAt: Instant
    /// The first instant at which the hold no longer lives: `createdAt + holdSeconds`.
    public var expiresAt: Instant
    /// The reminder the booking made by confirming it will have, in seconds before ``start``.
    public var reminderOffsetSeconds: Int64?

    public init(
        slot: Slot, user: UserID, start: Instant, createdAt: Instant, expiresAt: Instant,
        reminderOffsetSeconds: Int64? = nil
    ) {
        self.slot = slot
        self.user = user
        self.start = start
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.reminderOffsetSeconds = reminderOffsetSeconds
    }

    /// Whether a hold expiring at `expiresAt` still lives at `now`: the one definition of expiry.
    @inline(__always)
    public static func isLive(expiresAt: Int64, at now: Int64) -> Bool { now < expiresAt }

    /// Whether the hold still lives at `now`.
    public func isLive(at now: Instant) -> Bool {
        Self.isLive(expiresAt: expiresAt.secondsSinceEpoch, at: now.secondsSinceEpoch)
    }
}
