import SlotScheduler

/// I21 over a run's final bookings, in both modes: a check-out ends a session it began. A booking
/// is fulfilled exactly when it was checked out, and only after a check-in; and sessions — from
/// the later of the check-in and the booking's start to the earlier of the check-out and its end
/// — never overlap on one socket (no vehicle in two rides at once) nor, for a user whose limit is
/// one, for one user (no user rides twice at once).
package enum SessionCheck {
    struct Session {
        var booking: BookingID
        var from: Int64
        var to: Int64
    }

    /// The message of each broken promise, in booking-id order, then socket and user order.
    package static func problems(_ bookings: [Booking], rules: Rules) -> [String] {
        var problems: [String] = []
        var bySocket: [String: [Session]] = [:]
        var byUser: [UserID: [Session]] = [:]
        for b in bookings.sorted(by: { $0.id < $1.id }) {
            if (b.status == .fulfilled) != (b.checkedOutAt != nil) {
                problems.append(
                    "booking \(b.id) is \(b.status) but was \(b.checkedOutAt == nil ? "never" : "") checked out")
            }
            if b.checkedOutAt != nil, b.checkedInAt == nil {
                problems.append("booking \(b.id) was checked out without a check-in")
            }
            guard let checkedIn = b.checkedInAt, b.status == .active || b.status == .fulfilled else { continue }
            let start = b.start.secondsSinceEpoch
            let end = b.end.secondsSinceEpoch
            let session = Session(
                booking: b.id, from: max(checkedIn.secondsSinceEpoch, start),
                to: min(b.checkedOutAt?.secondsSinceEpoch ?? end, end))
            guard session.from < session.to else { continue }
            bySocket["\(b.slot.station)/\(b.slot.socket)", default: []].append(session)
            if rules.limit(for: b.user) == 1 { byUser[b.user, default: []].append(session) }
        }
        for (key, sessions) in bySocket.sorted(by: { $0.key < $1.key }) {
            if let (a, b) = overlap(sessions) {
                problems.append("socket \(key) is in two sessions at once: bookings \(a) and \(b)")
            }
        }
        for (user, sessions) in byUser.sorted(by: { $0.key < $1.key }) {
            if let (a, b) = overlap(sessions) {
                problems.append("user \(user), limited to one, is in two sessions at once: bookings \(a) and \(b)")
            }
        }
        return problems
    }

    /// Two sessions that overlap, if any: sorted by start, each must begin at or after the
    /// latest end before it.
    static func overlap(_ sessions: [Session]) -> (BookingID, BookingID)? {
        let sorted = sessions.sorted { ($0.from, $0.booking) < ($1.from, $1.booking) }
        var latest: Session?
        for s in sorted {
            if let l = latest, s.from < l.to { return (l.booking, s.booking) }
            if s.to > latest?.to ?? Int64.min { latest = s }
        }
        return nil
    }
}
