import SlotScheduler
import Testing

@testable import SlotSimulation

/// The one cell numbering: every cell of a scenario comes apart into the socket, date and hour of
/// its slot, and back into the same cell.
@Suite struct CellGridTests {
    @Test func everyCellRoundTrips() throws {
        let p = try Fixtures.prepared(Fixtures.small(operations: 10))
        let grid = p.grid
        #expect(p.cellCount > 48)
        for cell in 0..<Int32(p.cellCount) {
            let slot = p.slot(ofCell: cell)
            #expect(grid.day(ofCell: cell) == slot.date.dayNumber)
            #expect(Int(grid.hour(ofCell: cell)) == slot.hour)
            #expect(
                grid.socketDay(ofCell: cell) == grid.socket(ofCell: cell) * grid.days + grid.day(ofCell: cell)
                    - p.firstDay)
            let back = grid.cell(
                socket: grid.socket(ofCell: cell), dayOffset: grid.day(ofCell: cell) - grid.firstDay,
                hour: grid.hour(ofCell: cell))
            #expect(back == cell)
        }
    }
}
