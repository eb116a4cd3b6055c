import Foundation
import SlotScheduler

/// The workload's candidate cells (``PreparedScenario/candidates``) without the list: every
/// (socket, date, hour) of the workload's dates and hours in order, computed from the index, so
/// picking one costs arithmetic instead of a likely cache miss on a list of 50,000 cells.
struct CandidateGrid {
    let count: Int
    private let list: [Int32]
    private let hours: [Int32]
    private let perSocket: UInt32
    private let days: Int32
    private let first: Int32

    /// The grid of `p`'s workload, or `nil` when it does not reproduce `p.candidates` exactly.
    init?(_ p: PreparedScenario) {
        guard let w = p.scenario.workload, !p.candidates.isEmpty else { return nil }
        let hours = (w.hours ?? .allDay).map { Int32($0) }
        guard !hours.isEmpty, p.candidates.count == p.socketCount * w.dates.days * hours.count,
            p.candidates.count <= Int(UInt32.max)
        else { return nil }
        self.count = p.candidates.count
        self.list = []
        self.hours = hours
        self.perSocket = UInt32(w.dates.days * hours.count)
        self.days = Int32(p.days)
        self.first = w.dates.from.dayNumber &- p.firstDay
        guard p.candidates.indices.allSatisfy({ self[$0] == p.candidates[$0] }) else { return nil }
    }

    /// The candidates as a plain list.
    init(list: [Int32]) {
        count = list.count
        self.list = list
        hours = []
        perSocket = 0
        days = 0
        first = 0
    }

    @inline(__always)
    subscript(index: Int) -> Int32 {
        if perSocket == 0 { return list[index] }
        let i = UInt32(truncatingIfNeeded: index)
        let socket = i / perSocket
        let rest = i &- socket &* perSocket
        let hourCount = UInt32(truncatingIfNeeded: hours.count)
        let day = rest / hourCount
        let hour = hours[Int(rest &- day &* hourCount)]
        return CellGrid(days: days, firstDay: 0).cell(
            socket: Int32(bitPattern: socket), dayOffset: first &+ Int32(bitPattern: day), hour: hour)
    }
}
