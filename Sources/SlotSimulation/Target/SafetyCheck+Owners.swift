/// Whose a booking is, and where: the safety checks that an API keeps each booking for the user
/// who made it, at the slot it was made at, and lets nobody else act on it.
extension SafetyCheck {
    /// *Kept as made*: each booking answered as made that is listed at the end is among its
    /// user's bookings, at its slot, or at one a move of it was answered to (or may have been).
    static func keptAsMade(
        made: [String: Int], owners: [String: UInt64], listed: [ListedBooking], _ completions: [Int: TargetEvent],
        _ evidence: ([Int]) -> [TargetEvent]
    ) -> [Finding] {
        var places: [String: Set<String>] = [:]
        var moves: [String: [Int]] = [:]
        for (booking, index) in made { places[booking] = Set(completions[index]?.slot.map { [place($0)] } ?? []) }
        for (index, event) in completions.sorted(by: { $0.key < $1.key })
        where event.operation == "reschedule" && event.kind != .fail {
            guard let booking = event.booking, let slot = event.slot, places[booking] != nil else { continue }
            places[booking]?.insert(place(slot))
            moves[booking, default: []].append(index)
        }
        var findings: [Finding] = []
        var seen = Set<String>()
        for booking in listed.sorted(by: { ($0.id, $0.user) < ($1.id, $1.user) }) {
            guard let index = made[booking.id], let owner = owners[booking.id], seen.insert(booking.id).inserted
            else { continue }
            let explanation: String
            if owner != booking.user {
                explanation =
                    "booking \(booking.id) was answered as made for user \(owner), and is listed among user \(booking.user)'s bookings"
            } else if let allowed = places[booking.id], !allowed.isEmpty, !allowed.contains(place(booking.slot)) {
                explanation =
                    "booking \(booking.id) was answered as made at \(allowed.sorted().joined(separator: " or ")), and is listed at \(booking.slot)"
            } else {
                continue
            }
            findings.append(
                Finding(
                    invariant: "acknowledged bookings kept", explanation: explanation,
                    events: evidence([index] + (moves[booking.id] ?? []))))
        }
        return findings
    }

    /// A slot key `station/socket/date/hour` with its hour as a number (`09` and `9` are one).
    static func place(_ key: String) -> String {
        guard let cut = key.lastIndex(of: "/"), let hour = Int(key[key.index(after: cut)...]) else { return key }
        return "\(key[..<cut])/\(hour)"
    }

    /// *Nobody acts as another user*: a cancel, check-in, check-out or read of a booking sent by
    /// a user it is not theirs, or a list of another user's bookings (`list`), is refused, and not as forbidden (403, or `notOwner`): the answer
    /// for another user's booking must be the answer for a missing one.
    static func actingAsAnother(
        _ foreign: [Int], owners: [String: UInt64], _ completions: [Int: TargetEvent],
        _ evidence: ([Int]) -> [TargetEvent]
    ) -> [Finding] {
        foreign.compactMap { index in
            guard let event = completions[index], let booking = event.booking, let owner = owners[booking] else {
                return nil
            }
            let what =
                switch event.operation {
                case "list": "user \(owner)'s list of bookings, read by user \(event.user), showing booking \(booking),"
                case "read": "a read of booking \(booking) of user \(owner) by user \(event.user)"
                default: "a \(event.operation) of booking \(booking) of user \(owner) by user \(event.user)"
                }
            let explanation: String
            switch event.kind {
            case .ok: explanation = "\(what) was answered as made"
            case .fail where event.status == 403 || event.reason == "notOwner":
                explanation =
                    "\(what) was refused as forbidden (\(event.status.map(String.init) ?? "?") \(event.reason ?? "")), which tells another user's booking apart from a missing one"
            default: return nil
            }
            return Finding(
                invariant: "nobody acts as another user", explanation: explanation, events: evidence([index]))
        }
    }
}
