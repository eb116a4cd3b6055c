import SlotScheduler

/// The open hours of each socket-day over a threads-mode run: the scenario's overrides, then
/// every accepted availability change with the times it was invoked and completed.
///
/// Changes run concurrently with reservations, so the hours a reservation saw are not one
/// value but a set: those of any change that could have been the last one before it.
struct AvailabilityHistory {
    struct Change {
        var invoke: Int64
        var complete: Int64
        var mask: UInt32
    }
    /// Open hours at the start, per socket-day (``CellGrid/socketDay(ofCell:)``).
    let initial: [UInt32]
    /// Accepted changes per socket-day, in history order.
    let changes: [Int: [Change]]
    let grid: CellGrid

    init(_ p: PreparedScenario, history: CompactHistory) {
        grid = p.grid
        var model = ReferenceModel(p)
        for change in p.scenario.overrides ?? [] { model.apply(change, displaced: []) }
        initial = model.open
        var changes: [Int: [Change]] = [:]
        for op in history where op.kind == .change && op.outcome == -1 {
            guard let change = op.change else { continue }
            for (socketDay, mask) in model.openHours(after: change) {
                changes[socketDay, default: []].append(Change(invoke: op.invoke, complete: op.complete, mask: mask))
            }
        }
        self.changes = changes
    }

    /// Whether `cell`'s hour could have been open when `op` ran: open in the hours set by some
    /// change that could be the last one ordered before `op`, or at the start if no change was
    /// definitely before it.
    ///
    /// - Complexity: O(*k*²) in the changes of the cell's socket-day.
    func couldBeOpen(cell: Int32, during op: TimedOperation) -> Bool {
        let socketDay = Int(grid.socketDay(ofCell: cell))
        let bit = UInt32(1) << UInt32(grid.hour(ofCell: cell))
        let list = changes[socketDay] ?? []
        let before = list.filter { $0.complete < op.invoke }
        if before.isEmpty, initial[socketDay] & bit != 0 { return true }
        for (i, c) in list.enumerated() where c.invoke < op.complete {
            // A change definitely followed by another one definitely before `op` cannot be last.
            let superseded =
                c.complete < op.invoke
                && list.indices.contains { j in j != i && list[j].invoke > c.complete && list[j].complete < op.invoke }
            if !superseded, c.mask & bit != 0 { return true }
        }
        return false
    }
}
