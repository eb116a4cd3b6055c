import Foundation
import SlotScheduler

/// One line of a history recorded against a live API (Jepsen's vocabulary): an operation's
/// invocation, then its completion as `ok` (made), `fail` (not made: refused, or to retry later)
/// or `info` (unknown: no answer, a timeout, another 5xx).
public struct TargetEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case invoke, ok, fail, info
    }

    /// The operation's number in the run (an invocation and its completion share it).
    public var index: Int
    /// The worker that sent it; -1 for a request sent after the workload, reading back.
    public var process: Int
    public var kind: Kind
    /// `reserve`, `cancel`, `anySocket`, `reschedule`, `read`, `checkIn`, `checkOut`, `hold`,
    /// `confirm` or `release`.
    public var operation: String
    public var user: UInt64
    /// `station/socket/date/hour`, for a reservation (and a hold, and the hold a confirm or
    /// release names).
    public var slot: String?
    public var requestID: String?
    /// The booking made (a reservation's or confirm's `ok`) or aimed at (a cancel).
    public var booking: String?
    /// The hold made (a hold's `ok`, when the API names holds by id) or aimed at (a confirm or
    /// release).
    public var hold: String?
    public var status: Int?
    /// The refusal's reason, when the answer says it; ``retryLater`` for an answer that asks to
    /// be retried later (429, …).
    public var reason: String?

    /// `true` for a check-in that presented a code other than its socket's `accessCode`, which
    /// the API must refuse (`wrongAccessCode`); absent otherwise.
    public var wrongCode: Bool?

    /// Where a check-out left its booking's vehicle (the scenario's workload moves vehicles,
    /// ``Workload/leftWithinKm``); absent for a check-out that leaves it in place.
    public var leftAt: Coordinate?

    /// The reason of a `fail` whose answer asked to be retried later: not a refusal.
    public static let retryLater = "(retry later)"
    /// Nanoseconds since the run started, on a monotonic clock.
    public var time: Int64

    public init(
        index: Int, process: Int, kind: Kind, operation: String, user: UInt64, slot: String? = nil,
        requestID: String? = nil, booking: String? = nil, hold: String? = nil, status: Int? = nil,
        reason: String? = nil, time: Int64
    ) {
        self.index = index
        self.process = process
        self.kind = kind
        self.operation = operation
        self.user = user
        self.slot = slot
        self.requestID = requestID
        self.booking = booking
        self.hold = hold
        self.status = status
        self.reason = reason
        self.time = time
    }

    /// The event as one line of JSON (sorted keys), for `--history`.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The event for a person: time, process, kind, operation and what it named.
    public var line: String {
        var parts = [
            String(format: "%10.3f ms", Double(time) / 1e6), "p\(process)", kind.rawValue, operation, "user \(user)",
        ]
        if let slot { parts.append("slot \(slot)") }
        if let requestID { parts.append("key \(requestID)") }
        if let booking { parts.append("booking \(booking)") }
        if let hold { parts.append("hold \(hold)") }
        if wrongCode == true { parts.append("with a wrong access code") }
        if let leftAt { parts.append("leaving it at \(leftAt.pair)") }
        if let status { parts.append("→ \(status)") }
        if let reason { parts.append(reason) }
        return parts.joined(separator: " ")
    }
}

/// A booking as the API lists it at the end of a run.
public struct ListedBooking: Sendable, Equatable {
    public var id: String
    public var user: UInt64
    public var slot: String
    public var live: Bool

    public init(id: String, user: UInt64, slot: String, live: Bool) {
        self.id = id
        self.user = user
        self.slot = slot
        self.live = live
    }
}
