import Foundation
import SlotScheduler

/// Writes a history as JSON lines, buffered, to a partial file beside its target (see
/// ``OutputFile``); ``finish()`` renames it into place, ``discard()`` removes it, so a failed or
/// interrupted run never leaves a half-written file behind and never replaces anything but a
/// regular file.
final class HistoryWriter {
    let output: OutputFile
    private let partial: PartialFile
    private var buffer: [UInt8] = []
    private let encoder = HistoryLine.makeEncoder()
    private var failed: Int32 = 0

    var path: String { output.path }

    init(path: String) throws(SimulationIOError) {
        output = try OutputFile.check(path, kind: .history)
        partial = try output.create()
        buffer.reserveCapacity(1 << 20)
    }

    /// Appends one line: the bytes `JSONEncoder` gives (see `HistoryLine.appendJSON(to:encoder:)`).
    func write(_ line: HistoryLine) {
        line.appendJSON(to: &buffer, encoder: encoder)
        buffer.append(10)
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        let ok = buffer.withUnsafeBytes { partial.write($0) }
        if !ok && failed == 0 { failed = errno }
        buffer.removeAll(keepingCapacity: true)
    }

    func finish() throws(SimulationIOError) {
        flush()
        if failed != 0 {
            partial.discard()
            throw SimulationIOError(
                path: path, problem: "cannot write the history: \(String(cString: strerror(failed)))")
        }
        try output.commit(partial)
    }

    func discard() {
        partial.discard()
    }
}

/// One operation of a deterministic run, as kept in the recent-events ring and written to the history.
struct OpRecord {
    enum Kind: UInt8 {
        case reserve, retry, cancel, query, change, step, hold, confirm, releaseHold, reschedule, anySocket, checkIn
        case checkOut
    }
    var seq: Int = 0
    var now: Int64 = 0
    var kind: Kind = .reserve
    var user: UInt64 = 0
    var cell: Int32 = -1
    /// Booking made (reserve) or cancelled (cancel).
    var booking: UInt64 = 0
    /// `-1` accepted, else an index into `Rejection.Reason.allCases`.
    var outcome: Int16 = -1
    var detail: Detail = .none

    /// The history line's `detail`, kept unformatted so that a run without a history file never
    /// builds the text.
    enum Detail {
        case none
        case requestID(RequestID)
        /// A query's answer, `nil` when the query threw.
        case status(SlotStatus?)
        case nothingToCancel
        case text(String)

        /// The text of the history's `detail` field, `nil` for none.
        var text: String? {
            switch self {
            case .none: nil
            case .requestID(let id): "requestID \(id.rawValue)"
            case .status(let status): status?.rawValue ?? "error"
            case .nothingToCancel: "nothing to cancel"
            case .text(let text): text
            }
        }
    }
}

enum Reasons {
    /// Every reason, at the index its ``code(_:)`` gives (the declaration order).
    static let all: [Rejection.Reason] = {
        let all = Rejection.Reason.allCases.sorted { code($0) < code($1) }
        precondition(all.indices.allSatisfy { code(all[$0]) == $0 }, "Reasons.code must number the reasons 0..<n")
        return all
    }()

    /// The index of `reason` in ``all``, `-1` for `nil` (accepted). A switch, not a dictionary:
    /// a `String`-backed enum hashes its raw value, and this runs twice per operation.
    @inline(__always)
    static func code(_ reason: Rejection.Reason?) -> Int16 {
        guard let reason else { return -1 }
        return switch reason {
        case .unknownStation: 0
        case .unknownSocket: 1
        case .invalidHour: 2
        case .nonexistentLocalTime: 3
        case .slotInPast: 4
        case .tooSoon: 5
        case .beyondHorizon: 6
        case .socketClosed: 7
        case .outsideOpeningHours: 8
        case .slotTaken: 9
        case .userLimitReached: 10
        case .conflictingRequestID: 11
        case .invalidReminder: 12
        case .reminderInPast: 13
        case .unknownBooking: 14
        case .notOwner: 15
        case .alreadyCancelled: 16
        case .cancellationCutoffPassed: 17
        case .slotHasBookings: 18
        case .unsupportedDate: 19
        case .invalidRequestID: 20
        case .noMatchingSocketFree: 21
        case .rescheduleCutoffPassed: 22
        case .rescheduleToOtherStation: 23
        case .released: 24
        case .slotHeld: 25
        case .holdExpired: 26
        case .holdLimitReached: 27
        case .unknownHold: 28
        case .checkInNotOpen: 29
        case .checkInClosed: 30
        case .invalidCatalog: 31
        case .timeZoneHasBookings: 32
        case .catalogFixed: 33
        case .notCheckedIn: 34
        case .alreadyCheckedOut: 35
        case .wrongAccessCode: 36
        }
    }

    static func name(_ code: Int16) -> String { code < 0 ? "accepted" : all[Int(code)].rawValue }
}

/// Formats history lines; caches slot names per cell.
struct HistoryFormat {
    let prepared: PreparedScenario
    var names: [Int32: String] = [:]
    /// Names cached at most (one writer per worker keeps its own cache).
    let cacheLimit: Int

    init(_ p: PreparedScenario, cacheLimit: Int = 1 << 20) {
        prepared = p
        self.cacheLimit = cacheLimit
    }

    mutating func slotName(_ cell: Int32) -> String {
        if cell < 0 { return "" }
        if let name = names[cell] { return name }
        let name = prepared.slot(ofCell: cell).description
        if names.count < cacheLimit { names[cell] = name }
        return name
    }

    mutating func line(_ r: OpRecord) -> HistoryLine {
        let op: String
        switch r.kind {
        case .reserve: op = "reserve"
        case .retry: op = "reserveWithRequestID"
        case .cancel: op = "cancel"
        case .query: op = "query"
        case .change: op = "changeAvailability"
        case .step: op = "step"
        case .hold: op = "hold"
        case .confirm: op = "confirm"
        case .releaseHold: op = "releaseHold"
        case .reschedule: op = "reschedule"
        case .anySocket: op = "anySocket"
        case .checkIn: op = "checkIn"
        case .checkOut: op = "checkOut"
        }
        var line = HistoryLine(op: op, user: r.user)
        line.seq = r.seq
        line.t = r.now
        if r.cell >= 0 { line.slot = slotName(r.cell) }
        if r.booking != 0 { line.booking = r.booking }
        line.result = Reasons.name(r.outcome)
        line.detail = r.detail.text
        return line
    }

    /// One line of text (for a report's `nearby`).
    mutating func text(_ r: OpRecord) -> String { line(r).text }
}
