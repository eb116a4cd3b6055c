import SlotScheduler

/// A station's place as the API listed it after the run (the adapter's ``Adapter/Answers/places``
/// in the answer of its `stations` operation); `place` is `nil` for a station listed without one.
public struct StationPlace: Sendable, Equatable {
    public var station: String
    public var place: Coordinate?

    public init(station: String, place: Coordinate?) {
        self.station = station
        self.place = place
    }
}

extension SafetyCheck {
    /// The name of I21's finding against an API.
    public static let leftWhereTheLastRideEnded = "left where the last ride ended"

    /// I21 against an API: each station whose vehicle a check-out answered as made moved (a
    /// `checkOut` sent with ``TargetEvent/leftAt``) is, in `places`, where a check-out that may
    /// have moved it last left it (the rule of `LastMove`), within a millionth of a degree (about 10 cm:
    /// an API may keep six decimals). A station missing from `places` is a finding too.
    ///
    /// Cost: linear in the history.
    public static func checkPlaces(history: [TargetEvent], places: [StationPlace]) -> [Finding] {
        let checkOuts = history.filter { $0.operation == "checkOut" && $0.leftAt != nil }
        let invocations = Dictionary(
            checkOuts.filter { $0.kind == .invoke }.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        var moves: [String: [(invoke: TargetEvent, done: TargetEvent)]] = [:]
        for done in checkOuts where done.kind == .ok || done.kind == .info {
            guard let invoke = invocations[done.index], let station = done.slot?.split(separator: "/").first else {
                continue
            }
            moves[String(station), default: []].append((invoke, done))
        }
        let listed = Dictionary(places.map { ($0.station, $0.place) }, uniquingKeysWith: { first, _ in first })
        var findings: [Finding] = []
        for station in moves.keys.sorted() {
            let sent = moves[station] ?? []
            let candidates = sent.map {
                LastMove.Move(
                    start: $0.invoke.time, end: $0.done.time, accepted: $0.done.kind == .ok, place: $0.done.leftAt)
            }
            guard let allowed = LastMove.candidates(candidates) else { continue }
            let now: String
            switch listed[station] {
            case .some(let place) where allowed.contains(where: { Self.samePlace($0, place) }): continue
            case .some(let place): now = "at \(Coordinate.describe(place))"
            case .none: now = "missing from the stations listed"
            }
            findings.append(
                Finding(
                    invariant: leftWhereTheLastRideEnded,
                    explanation: "station \(station) is \(now) after the run, where the check-outs that could have "
                        + "moved it last left it at " + allowed.map(Coordinate.describe).joined(separator: " or "),
                    events: sent.flatMap { [$0.invoke, $0.done] }.sorted { ($0.time, $0.index) < ($1.time, $1.index) }))
        }
        return findings
    }

    /// Whether two places are one, to a millionth of a degree.
    static func samePlace(_ a: Coordinate?, _ b: Coordinate?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a.latitude - b.latitude) <= 1e-6 && abs(a.longitude - b.longitude) <= 1e-6
    }
}
