/// The checks that hold for any booking API whatever its rules (`--check safety`), over a
/// history recorded against it and its bookings listed at the end:
/// - **no double booking**: no two live bookings of one slot;
/// - **per-user limit**: no user with more live bookings than the limit, at the end or at any
///   moment of the run when bookings answered as made were live together;
/// - **acknowledged bookings kept**: a booking answered as made is live at the end, unless a
///   cancel of it was answered as made or got no answer; and a read of it during the run is not
///   refused unless a cancel of it was sent before the read was answered;
/// - **acknowledged cancels applied**: a booking whose cancel was answered as made is not live;
/// - **idempotent retries**: a key repeated by one user never makes a second booking, and a
///   repeat sent after the first was answered as made is not refused; the key sent then with
///   another slot is not answered as made;
/// - **kept as made**: a booking answered as made is listed at the end among its user's
///   bookings, at its slot or one a move of it was answered to (`SafetyCheck+Owners.swift`);
/// - **nobody acts as another user**: a cancel or read of another user's booking is refused, and
///   not as forbidden (403, `notOwner`), which would tell it apart from a missing one.
///
/// Operations whose outcome is unknown (`info`) are resolved either way, as Jepsen does. Each
/// finding carries the smallest part of the history that shows it. Cost: linear in the history
/// and the listed bookings (each is grouped once, by slot, user, booking and key), and
/// O(*k* log *k*) in each user's *k* bookings for the limit during the run.
public enum SafetyCheck {
    public struct Finding: Sendable, Equatable {
        public var invariant: String
        public var explanation: String
        /// The invocations and completions involved, by time.
        public var events: [TargetEvent]
    }

    public static func check(history: [TargetEvent], listed: [ListedBooking], limit: Int?) -> [Finding] {
        var completions: [Int: TargetEvent] = [:]
        var invocations: [Int: TargetEvent] = [:]
        for event in history {
            if event.kind == .invoke { invocations[event.index] = event } else { completions[event.index] = event }
        }
        /// An operation's invocation and completion, for a finding.
        func evidence(_ indexes: [Int]) -> [TargetEvent] {
            indexes.flatMap { [invocations[$0], completions[$0]].compactMap { $0 } }.sorted {
                ($0.time, $0.index) < ($1.time, $1.index)
            }
        }
        var made: [String: Int] = [:]  // booking id -> the reservation's index
        var owners: [String: UInt64] = [:]  // booking id -> the user it was made for
        var foreign: [Int] = []  // cancels and reads of another user's booking
        var cancels: [String: [(index: Int, kind: TargetEvent.Kind)]] = [:]
        var keys: [String: [Int]] = [:]  // user/key -> reservations answered ok
        for (index, event) in completions.sorted(by: { $0.key < $1.key }) {
            switch event.operation {
            case "reserve" where event.kind == .ok, "anySocket" where event.kind == .ok,
                // A confirmed hold is a booking made, kept and limited as a reservation's.
                "confirm" where event.kind == .ok:
                if let booking = event.booking, made[booking] == nil {
                    made[booking] = index
                    owners[booking] = event.user
                }
                if event.operation != "confirm", let key = event.requestID {
                    keys["\(event.user)/\(key)", default: []].append(index)
                }
            case _ where event.booking.flatMap({ owners[$0] }).map({ $0 != event.user }) == true:
                // Sent by someone else: it must not act on the booking at all.
                foreign.append(index)
            case "cancel", "checkOut":
                // A check-out ends its booking as a cancel does: the same promises hold.
                if let booking = event.booking { cancels[booking, default: []].append((index, event.kind)) }
            default: break
            }
        }
        var findings: [Finding] = []
        let live = listed.filter(\.live)
        let liveIDs = Set(live.map(\.id))
        for (slot, bookings) in Dictionary(grouping: live, by: \.slot).sorted(by: { $0.key < $1.key })
        where bookings.count > 1 {
            let ids = bookings.map(\.id).sorted()
            findings.append(
                Finding(
                    invariant: "no double booking",
                    explanation: "slot \(slot) is held by \(ids.count) live bookings: \(ids.joined(separator: ", "))",
                    events: evidence(ids.compactMap { made[$0] })))
        }
        if let limit {
            for (user, bookings) in Dictionary(grouping: live, by: \.user).sorted(by: { $0.key < $1.key })
            where bookings.count > limit {
                let ids = bookings.map(\.id).sorted()
                findings.append(
                    Finding(
                        invariant: "per-user limit",
                        explanation: "user \(user) holds \(ids.count) live bookings, the limit is \(limit)",
                        events: evidence(ids.compactMap { made[$0] })))
            }
        }
        if let limit { findings += limitDuringTheRun(made: made, cancels: cancels, invocations, completions, limit) }
        for (booking, index) in made.sorted(by: { $0.value < $1.value }) where !liveIDs.contains(booking) {
            let tried = cancels[booking] ?? []
            guard !tried.contains(where: { $0.kind == .ok || $0.kind == .info }) else { continue }
            findings.append(
                Finding(
                    invariant: "acknowledged bookings kept",
                    explanation:
                        "booking \(booking) was answered as made, no cancel of it was, and it is not live at the end",
                    events: evidence([index] + tried.map(\.index))))
        }
        findings += readsRefused(made: made, cancels: cancels, invocations, completions, evidence)
        findings += keptAsMade(made: made, owners: owners, listed: listed, completions, evidence)
        findings += actingAsAnother(foreign, owners: owners, completions, evidence)
        for (booking, tried) in cancels.sorted(by: { $0.key < $1.key }) where liveIDs.contains(booking) {
            guard let done = tried.first(where: { $0.kind == .ok }) else { continue }
            findings.append(
                Finding(
                    invariant: "acknowledged cancels applied",
                    explanation: "the cancel of booking \(booking) was answered as made, and it is live at the end",
                    events: evidence([made[booking], done.index].compactMap { $0 })))
        }
        for (key, indexes) in keys.sorted(by: { $0.key < $1.key }) {
            let bookings = Set(indexes.compactMap { completions[$0]?.booking })
            guard bookings.count > 1 else { continue }
            findings.append(
                Finding(
                    invariant: "idempotent retries",
                    explanation:
                        "key \(key) made \(bookings.count) bookings: \(bookings.sorted().joined(separator: ", "))",
                    events: evidence(indexes)))
        }
        findings += keysRepeated(keys: keys, invocations, completions, evidence)
        return findings
    }

    /// A key's later requests, once its first was answered as made: a repeat (the same slot) must
    /// get that answer again, never a refusal; the key sent with another slot (another request)
    /// must not be answered as made with the key's first booking, which would claim a booking the
    /// request did not get (the IETF Idempotency-Key draft answers it 422).
    static func keysRepeated(
        keys: [String: [Int]], _ invocations: [Int: TargetEvent], _ completions: [Int: TargetEvent],
        _ evidence: ([Int]) -> [TargetEvent]
    ) -> [Finding] {
        var findings: [Finding] = []
        for (index, event) in completions.sorted(by: { $0.key < $1.key })
        where event.operation == "reserve" && event.kind != .info && event.reason != TargetEvent.retryLater {
            guard let key = event.requestID, let invoked = invocations[index],
                let first = keys["\(event.user)/\(key)"]?.first(where: {
                    (completions[$0]?.time ?? .max) < invoked.time
                }),
                let firstSlot = invocations[first]?.slot
            else { continue }
            let same = invoked.slot == firstSlot
            guard same ? event.kind == .fail : event.kind == .ok else { continue }
            // Another booking made for it is the key's second booking, found above.
            if !same, let booking = event.booking, booking != completions[first]?.booking { continue }
            let explanation =
                same
                ? "key \(event.user)/\(key) was answered as made, then its repeat was refused (\(event.reason ?? "status \(event.status.map(String.init) ?? "?")"))"
                : "key \(event.user)/\(key) was answered as made for \(firstSlot), then sent again for \(invoked.slot ?? "?") and answered as made"
            findings.append(
                Finding(invariant: "idempotent retries", explanation: explanation, events: evidence([first, index])))
        }
        return findings
    }

    /// Reads of a booking answered as made that were refused while no cancel of it had been sent.
    static func readsRefused(
        made: [String: Int], cancels: [String: [(index: Int, kind: TargetEvent.Kind)]],
        _ invocations: [Int: TargetEvent], _ completions: [Int: TargetEvent], _ evidence: ([Int]) -> [TargetEvent]
    ) -> [Finding] {
        var findings: [Finding] = []
        for (index, read) in completions.sorted(by: { $0.key < $1.key })
        where read.operation == "read" && read.kind == .fail && read.reason != TargetEvent.retryLater {
            // Another user's read is refused as it should be (``actingAsAnother``).
            guard let booking = read.booking, let madeAt = made[booking], let answered = completions[madeAt],
                answered.user == read.user, answered.time < (invocations[index]?.time ?? .min)
            else { continue }
            let cancelled = (cancels[booking] ?? []).contains { (invocations[$0.index]?.time ?? .max) < read.time }
            guard !cancelled else { continue }
            findings.append(
                Finding(
                    invariant: "acknowledged bookings kept",
                    explanation:
                        "booking \(booking) was answered as made and no cancel of it was sent, but a read of it was refused (\(read.reason ?? "status \(read.status.map(String.init) ?? "?")"))",
                    events: evidence([madeAt, index])))
        }
        return findings
    }

    /// A moment when a user held more than `limit` bookings that were all certainly live: each
    /// is live from its reservation's answer as made until a cancel of it is sent (the final state
    /// may hide such a moment once a cancel brings the user back under the limit). A sweep over
    /// each user's bookings: O(*k* log *k*) for *k* bookings.
    static func limitDuringTheRun(
        made: [String: Int], cancels: [String: [(index: Int, kind: TargetEvent.Kind)]],
        _ invocations: [Int: TargetEvent], _ completions: [Int: TargetEvent], _ limit: Int
    ) -> [Finding] {
        struct Change {
            var time: Int64
            var opens: Bool
            var booking: String
            var index: Int
        }
        var byUser: [UInt64: [Change]] = [:]
        for (booking, index) in made {
            guard let done = completions[index] else { continue }
            let ended = (cancels[booking] ?? []).filter { $0.kind != .fail }.compactMap { invocations[$0.index]?.time }
            let until = ended.min() ?? .max
            guard until > done.time else { continue }
            byUser[done.user, default: []] += [
                Change(time: done.time, opens: true, booking: booking, index: index),
                Change(time: until, opens: false, booking: booking, index: index),
            ]
        }
        var findings: [Finding] = []
        for (user, changes) in byUser.sorted(by: { $0.key < $1.key }) {
            // Closings first at equal times: a cancel sent when a booking is made does not overlap.
            var live: [String: Int] = [:]
            for change in changes.sorted(by: {
                ($0.time, $0.opens ? 1 : 0, $0.index) < ($1.time, $1.opens ? 1 : 0, $1.index)
            }) {
                guard change.opens else {
                    live[change.booking] = nil
                    continue
                }
                live[change.booking] = change.index
                guard live.count > limit else { continue }
                let indexes = live.values.sorted()
                findings.append(
                    Finding(
                        invariant: "per-user limit",
                        explanation:
                            "user \(user) held \(live.count) live bookings at once (\(live.keys.sorted().joined(separator: ", "))), the limit is \(limit)",
                        events: indexes.flatMap { [invocations[$0], completions[$0]].compactMap { $0 } }.sorted {
                            ($0.time, $0.index) < ($1.time, $1.index)
                        }))
                break
            }
        }
        return findings
    }
}
