import SlotScheduler

extension Report {
    /// How many operations ended without a definite outcome, and how the final state resolved them.
    public struct Indeterminate: Codable, Sendable, Equatable {
        public var reservationsThatHappened = 0
        public var reservationsThatDidNot = 0
        public var cancelsThatHappened = 0
        public var cancelsThatDidNot = 0
        public var confirmsThatHappened = 0
        public var confirmsThatDidNot = 0
        public var anySocketThatHappened = 0
        public var anySocketThatDidNot = 0
        public var reschedulesThatHappened = 0
        public var reschedulesThatDidNot = 0
        /// Repeats, queries, availability changes, holds, releases, check-ins and reschedules
        /// followed by another move of their booking: checked only where their outcome is known.
        public var other = 0

        /// Adds one to the `happened` count or to the `didNot` one.
        mutating func count(
            _ wasDone: Bool, _ happened: WritableKeyPath<Self, Int>, _ didNot: WritableKeyPath<Self, Int>
        ) {
            self[keyPath: wasDone ? happened : didNot] += 1
        }

        public var total: Int {
            reservationsThatHappened + reservationsThatDidNot + cancelsThatHappened + cancelsThatDidNot
                + confirmsThatHappened + confirmsThatDidNot + anySocketThatHappened + anySocketThatDidNot
                + reschedulesThatHappened + reschedulesThatDidNot + other
        }

        /// The lifecycle calls' part of ``summary``; empty when there were none.
        var lifecycle: String {
            let parts = [
                ("confirms", confirmsThatHappened, confirmsThatDidNot),
                ("any-socket requests", anySocketThatHappened, anySocketThatDidNot),
                ("reschedules", reschedulesThatHappened, reschedulesThatDidNot),
            ]
            return parts.filter { $0.1 + $0.2 > 0 }.map { "\($0.0) \($0.1) happened, \($0.2) did not; " }.joined()
        }

        var summary: String {
            "\(total) indeterminate: reservations \(reservationsThatHappened) happened, \(reservationsThatDidNot) did not; "
                + "cancels \(cancelsThatHappened) happened, \(cancelsThatDidNot) did not; "
                + lifecycle + "\(other) other"
        }
    }
}
