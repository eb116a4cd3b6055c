import SlotScheduler

/// Check-ins under `--check rules`, judged against their booking's window (the model's
/// `checkInWindow`: from `earlyCheckInSeconds` before the hour starts to `noShowGraceSeconds`
/// after), at every moment the request was in flight on the target's clock:
/// - **check-in window**: a first check-in answered as made when the window was shut at every
///   such moment (a repeat is answered as made whenever it comes);
/// - **refusals justified**: a check-in refused as not open yet when the window had opened at
///   every such moment, or as closed when it had not closed at any.
extension RulesCheck {
    mutating func checkIn(_ k: Int, _ call: Call) {
        guard let id = call.invoke.booking, let n = numbers[id], let (slot, owner) = bookings[n],
            owner == call.invoke.user, let start = catalogClock.start(of: slot), let done = call.done
        else { return }
        let window = model.rules.checkInWindow(start: start)
        let (first, last) = moments(call)
        switch done.kind {
        case .ok where checkedIn.insert(n).inserted:
            if last < window.lowerBound {
                result.findings.append(
                    finding(
                        "check-in window",
                        "booking \(id) was checked in before its window opened (\(Instant(secondsSinceEpoch: window.lowerBound))) at every moment the request was in flight",
                        [k]))
            } else if first >= window.upperBound {
                result.findings.append(
                    finding(
                        "check-in window",
                        "booking \(id) was checked in after its window closed (\(Instant(secondsSinceEpoch: window.upperBound))) at every moment the request was in flight",
                        [k]))
            }
        case .info: checkedIn.insert(n)
        case .fail:
            let reason = adapter.reason(done.reason)
            let wrong =
                reason == .checkInNotOpen && first >= window.lowerBound
                || reason == .checkInClosed && last < window.upperBound
            guard wrong, let reason else { return }
            result.findings.append(
                finding(
                    "refusals justified",
                    "the check-in of booking \(id) was refused as \(reason.rawValue), but its window (\(Instant(secondsSinceEpoch: window.lowerBound)) to \(Instant(secondsSinceEpoch: window.upperBound))) says otherwise at every moment the request was in flight",
                    [k]))
        case .ok, .invoke: return
        }
    }
}
