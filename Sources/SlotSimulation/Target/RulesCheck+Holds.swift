import SlotScheduler

/// Holds under `--check rules`: a hold takes its slot and counts toward its user's limit (as a
/// booking that is always upcoming), and toward the policy's `maxHoldsPerUser`, until it is
/// confirmed, released or expires; a confirm turns
/// it into a booking in its place. Its expiry is an operation that may take effect at any moment
/// from the policy's `holdSeconds` after the hold was sent (less two seconds for a target that
/// counts whole seconds), so a slot free again after it, and a confirm refused as expired before
/// it, are both told apart.
extension RulesCheck {
    /// The key of a hold in `holds`: the id the API gave it, or its request's index.
    public static func holdKey(_ id: String?, index: Int) -> String { id ?? "#\(index)" }

    mutating func hold(_ k: Int, _ call: Call) {
        guard let slot = call.slot else { return }
        let user = call.invoke.user
        guard let done = call.done, done.kind != .info else {
            // Maybe made: nothing said about its slot or its user can be trusted.
            unsureSlots.insert(slot)
            unsureUsers.insert(user)
            return
        }
        let (first, last) = moments(call)
        var op = BookingOperation(
            kind: .neutral, user: user, now: last, start: .max,
            limit: Int32(clamping: model.rules.limit(for: UserID(user))), invoke: call.invoke.time,
            complete: done.time)
        switch done.kind {
        case .ok:
            let key = Self.holdKey(done.hold, index: call.invoke.index)
            op.booking = number("\u{0}hold \(key)")
            op.kind = .reserved
            holds[key] = (op.booking, slot, user)
            judgeMade(slot, "the hold of \(slot) was answered as made", (first, last), call: k)
            add(op, call: k, slot: slot, user: user)
            var expiry = op
            expiry.kind = .lapsed
            let lifetime = max(0, model.rules.policy.holdSeconds &- 2).multipliedReportingOverflow(by: 1_000_000_000)
            let end = call.invoke.time.addingReportingOverflow(lifetime.partialValue)
            expiry.invoke = lifetime.overflow || end.overflow ? .max : end.partialValue
            expiry.complete = .max
            add(expiry, call: k, slot: slot, user: user)
        case .fail where done.reason == TargetEvent.retryLater: return
        case .fail:
            guard let reason = adapter.reason(done.reason),
                classify(reason, &op, slot, "the hold of \(slot)", (first, last), call: k)
            else { return }
            add(op, call: k, slot: slot, user: user)
        case .invoke, .info: return
        }
    }

    /// The hold a confirm or release names, when the run saw it made by the same user.
    func heldBy(_ call: Call) -> (number: UInt64, slot: Slot, user: UInt64)? {
        guard let key = call.invoke.hold, let held = holds[key], held.user == call.invoke.user else { return nil }
        return held
    }

    /// A confirm: answered as made, the hold becomes the booking named (or, with an unknown
    /// outcome, the one read back at its slot that no answer named); refused as expired or
    /// unknown, the hold had lost its slot.
    mutating func confirm(_ k: Int, _ call: Call, resolved: (id: String, slot: Slot)?) {
        guard let held = heldBy(call) else { return }
        let (first, last) = moments(call)
        var op = BookingOperation(
            kind: .confirmed, user: held.user, now: last, start: catalogClock.start(of: held.slot) ?? .min,
            limit: Int32(clamping: model.rules.limit(for: UserID(held.user))), invoke: call.invoke.time,
            complete: call.done?.time ?? .max)
        op.hold = held.number
        guard let done = call.done, done.kind != .info else {
            // Unknown: made if a booking was read back for it; else not made (the hold lapses).
            guard let resolved else { return }
            op.booking = number(resolved.id)
            op.complete = .max
            bookings[op.booking] = (held.slot, held.user)
            add(op, call: k, slot: held.slot, user: held.user)
            return
        }
        switch done.kind {
        case .ok:
            guard let id = done.booking else { return }
            op.booking = number(id)
            bookings[op.booking] = (held.slot, held.user)
            judgeMade(
                held.slot, "booking \(id) (a confirmed hold of \(held.slot)) was answered as made", (first, last),
                call: k)
        case .fail where done.reason == TargetEvent.retryLater: return
        case .fail:
            guard let reason = adapter.reason(done.reason) else { return }
            switch reason {
            case .holdExpired, .unknownHold:
                op.kind = .refusedLapsed
                op.booking = held.number
            case _ where Self.isStatic(reason):
                judgeRefusal(reason, held.slot, "the confirm of the hold of \(held.slot)", (first, last), call: k)
                return
            default: return
            }
        case .invoke, .info: return
        }
        add(op, call: k, slot: held.slot, user: held.user)
    }

    /// A release: answered as made (or with an unknown outcome, maybe), the slot is free after it
    /// if the hold still had it. A refusal says nothing checked here.
    mutating func release(_ k: Int, _ call: Call) {
        guard let held = heldBy(call), call.done?.kind != .fail else { return }
        let unknown = call.done == nil || call.done?.kind == .info
        let op = BookingOperation(
            kind: .lapsed, booking: held.number, user: held.user, now: moments(call).last, start: .max,
            invoke: call.invoke.time, complete: unknown ? .max : call.done?.time ?? .max)
        add(op, call: k, slot: held.slot, user: held.user)
    }
}
