import SlotScheduler

/// Check-ins and check-outs under `--check rules`: each booking's session (what made, moved,
/// checked in, checked out or cancelled it) is a partition held to the model's session rules
/// (``SessionSpecification``), each call judged at every moment it was in flight on the target's
/// clock:
/// - **check-in window**: a first check-in answered as made when the window (from
///   `earlyCheckInSeconds` before the hour to `noShowGraceSeconds` after) was shut at every such
///   moment (a repeat is answered as made whenever it comes);
/// - **refusals justified**: a check-in refused as not open yet when the window had opened at
///   every such moment, or as closed when it had not closed at any;
/// - **check-out after check-in**: a check-out answered as made only of a booking checked in
///   (or maybe checked in) before it, and refused as not checked in only of one that was not;
/// - **cutoffs**: a cancel answered as made only before the cancellation cutoff at some moment in
///   flight, and a move only before the reschedule cutoff; refused as past it only after (a
///   finding of *refusals justified*);
/// - **access codes**: a check-in that presented a wrong code is never answered as made (the code
///   is checked before a repeat or the window); one that presented its socket's own is never
///   refused as `wrongAccessCode`, unless a move of its booking to another socket (whose code
///   differs) may have come first: one not refused, begun before the check-in ended.
extension RulesCheck {
    mutating func checkIn(_ k: Int, _ call: Call) {
        guard let n = ownBooking(call), let done = call.done else { return }
        guard !checkAccessCode(k, call, done) else { return }
        switch done.kind {
        case .ok: addSession(.checkedIn, booking: n, call: k)
        case .info: addSession(.maybeCheckedIn, booking: n, call: k)
        case .fail:
            switch adapter.reason(done.reason) {
            case .checkInNotOpen: addSession(.refusedNotOpen, booking: n, call: k)
            case .checkInClosed: addSession(.refusedClosed, booking: n, call: k)
            default: return
            }
        case .invoke: return
        }
    }

    /// **access codes** for check-in `call` (answered `done`); `true` when the call presented a
    /// wrong code, which then says nothing about the booking's session.
    mutating func checkAccessCode(_ k: Int, _ call: Call, _ done: TargetEvent) -> Bool {
        let id = call.invoke.booking ?? "?"
        if call.invoke.wrongCode == true {
            if done.kind == .ok {
                result.findings.append(
                    finding(
                        "access codes", "booking \(id) was checked in with a wrong access code, answered as made",
                        [k]))
            }
            return true
        }
        // The socket's own code, when the adapter sends codes at all.
        if done.kind == .fail, adapter.reason(done.reason) == .wrongAccessCode,
            adapter.operations.checkIn?.mentions("accessCode") == true, !mayHaveLeftItsSocket(call)
        {
            result.findings.append(
                finding(
                    "refusals justified",
                    "a check-in of booking \(id) with its socket's own access code was refused as wrongAccessCode",
                    [k]))
        }
        return false
    }

    /// Whether the booking check-in `call` names may have been on another socket than the one whose
    /// code it presented (its slot's) while it was in flight: it was elsewhere before, or a move of
    /// it to another socket, not refused, began before the check-in ended.
    func mayHaveLeftItsSocket(_ call: Call) -> Bool {
        guard let id = call.invoke.booking, let known = numbers[id].flatMap({ bookings[$0]?.slot }) else {
            return true
        }
        let slot = call.slot ?? known
        func otherSocket(_ other: Slot?) -> Bool {
            other.map { ($0.station, $0.socket) != (slot.station, slot.socket) } ?? true
        }
        if otherSocket(known) { return true }
        let end = call.done?.time ?? .max
        return (movesOf[id] ?? []).contains { m in
            calls[m].invoke.time < end && calls[m].done?.kind != .fail && otherSocket(calls[m].slot)
        }
    }

    /// The number of the booking `call` names, when its caller owns it.
    func ownBooking(_ call: Call) -> UInt64? {
        guard let id = call.invoke.booking, let n = numbers[id], bookings[n]?.user == call.invoke.user else {
            return nil
        }
        return n
    }

    /// Adds call `k` to booking `n`'s session as `kind`, judged over the moments it was in flight.
    mutating func addSession(_ kind: BookingOperation.Kind, booking n: UInt64, call k: Int) {
        let call = calls[k]
        let (first, last) = moments(call)
        let unknown = call.done == nil || call.done?.kind == .info
        var op = BookingOperation(
            kind: kind, booking: n, user: call.invoke.user, now: first, invoke: call.invoke.time,
            complete: unknown ? .max : call.done?.time ?? .max)
        op.latest = last
        bySession[n, default: []].append(Entry(operation: op, call: k))
        namedSessions.insert(n)
    }

    /// Searches the session of each booking a check-in or check-out named; `initialStarts`: the
    /// start of each booking read before the run.
    mutating func searchSessions(initialStarts: [UInt64: Int64], budget: Int) {
        for n in namedSessions.sorted() {
            guard let entries = bySession[n] else { continue }
            let ops = entries.map(\.operation)
            let spec = SessionSpecification(ops, initial: .init(start: initialStarts[n]), rules: model.rules)
            result.partitions += 1
            switch Self.verdict(spec, ops, budget: budget) {
            case .linearizable: continue
            case .unknown:
                result.unknownPartitions += 1
                continue
            case .notLinearizable: break
            }
            let id = numbers.first { $0.value == n }?.key ?? "#\(n)"
            guard let (i, violation) = spec.firstViolation() else {
                search(entries, name: "booking \(id)", invariant: "check-in window") { _ in .notLinearizable }
                continue
            }
            let (invariant, throughout): (String, Bool) =
                switch violation {
                case .checkedInBeforeWindow, .checkedInAfterWindow: ("check-in window", true)
                case .refusedAsNotOpen, .refusedAsClosed: ("refusals justified", true)
                case .acceptedAfterEnd(checkIn: true): ("check-in window", false)
                case .checkedOutWithoutCheckIn, .refusedAsNotCheckedIn, .acceptedAfterEnd:
                    ("check-out after check-in", false)
                case .acceptedAfterCutoff: ("cutoffs", true)
                case .refusedBeforeCutoff: ("refusals justified", true)
                }
            result.findings.append(
                finding(
                    invariant,
                    violation.explanation(booking: id)
                        + (throughout ? " at every moment the request was in flight" : ""), [entries[i].call]))
        }
    }
}
