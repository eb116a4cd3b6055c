/// Why ``Ledger/releaseDays(before:at:)`` (or the ``Scheduler``'s) refused a cutoff: some day
/// before it may still hold a booking that has not ended, or a slot someone could still book.
public struct RetentionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The cutoff asked for.
    public var cutoff: LocalDate
    /// The latest cutoff allowed at ``now``: today's date in the zone where it is earliest.
    public var latest: LocalDate
    public var now: Instant

    public init(cutoff: LocalDate, latest: LocalDate, now: Instant) {
        self.cutoff = cutoff
        self.latest = latest
        self.now = now
    }

    public var description: String {
        "cannot release the days before \(cutoff) at \(now): the latest safe cutoff is \(latest) "
            + "(today in the catalog's westernmost zone); later days may still hold upcoming bookings"
    }
}

/// What a booking id names: a booking held in memory, one released by retention (the journal
/// keeps it), or nothing this store ever assigned.
public enum BookingLookup: Hashable, Sendable {
    case booking(Booking)
    case released
    case unknown
}

extension Rules {
    /// The latest cutoff ``Ledger/releaseDays(before:at:)`` accepts at `now`: today's date in
    /// the catalog's zone where it is earliest (UTC for an empty catalog). Every slot on an
    /// earlier date has ended at `now` in every zone, so none is upcoming or bookable.
    ///
    /// - Complexity: O(zones).
    public func latestReleasableDate(at now: Instant) -> LocalDate {
        let days = catalog.zones.map { $0.localDay(at: now.secondsSinceEpoch) }
        return LocalDate(
            dayNumber: days.min() ?? Int32(clamping: Instant.floorDivide(now.secondsSinceEpoch, 86_400).quotient))
    }

    /// Throws unless `cutoff` is at most ``latestReleasableDate(at:)``.
    func checkRelease(before cutoff: LocalDate, at now: Instant) throws(RetentionError) {
        let latest = latestReleasableDate(at: now)
        guard cutoff <= latest else { throw RetentionError(cutoff: cutoff, latest: latest, now: now) }
    }
}
