import SlotScheduler

/// The floor (docs/performance/README.md describes the workload): the least state that decides the workload's
/// attempts (open and taken hours as bits per socket-day, one count per user), with no time
/// rules, records, journal or ids. What no booking engine can beat on this workload.
struct Floor {
    /// Per socket-day (`socket * days + day`): open hours in bits 0–23, taken hours in bits 32–55.
    var words: [UInt64]
    var counts: [Int32]
    let firstDay: Int32

    init(_ w: Workload) {
        let sockets = Workload.stationCount * Workload.socketsPerStation
        words = [UInt64](repeating: 0xFF_FFFF, count: sockets * Workload.days)
        counts = [Int32](repeating: 0, count: Int(Workload.users))
        firstDay = w.firstDay.dayNumber
        for change in w.closures {
            guard let station = Int(change.station.rawValue.dropFirst(3)), let socket = change.socket,
                let k = Int(socket.rawValue)
            else { continue }
            words[(station * Workload.socketsPerStation + k) * Workload.days + Int(change.date.dayNumber - firstDay)] =
                0
        }
    }

    @inline(__always)
    mutating func attempt(_ ref: SlotRef, for user: UserID) -> Bool {
        let w = Int(ref.socket) &* Workload.days &+ Int(ref.day &- firstDay)
        let word = words[w]
        let open = UInt64(1) << UInt64(ref.hour)
        let taken = open << 32
        guard word & open != 0, word & taken == 0 else { return false }
        let u = Int(truncatingIfNeeded: user.rawValue)
        guard counts[u] < Int32(Workload.limit) else { return false }
        words[w] = word | taken
        counts[u] &+= 1
        return true
    }
}
