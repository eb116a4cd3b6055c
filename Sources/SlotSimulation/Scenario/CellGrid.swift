/// How a scenario numbers its slots: `cell = (socket × days + day offset) × 24 + hour`, so a
/// socket's days, and a day's hours, are consecutive cells, and `cell / 24` numbers a socket-day.
/// The one place the formula is written; arithmetic wraps as it always has (callers check ranges).
struct CellGrid: Sendable {
    /// Days per socket.
    let days: Int32
    /// The day number of each socket's first day.
    let firstDay: Int32

    /// The cell of `socket` (the catalog's global socket index), `dayOffset` days after
    /// ``firstDay``, at `hour`.
    @inline(__always)
    func cell(socket: Int32, dayOffset: Int32, hour: Int32) -> Int32 { (socket &* days &+ dayOffset) &* 24 &+ hour }

    /// The socket-day of `cell` (an index into per-socket-day tables such as opening hours).
    @inline(__always)
    func socketDay(ofCell cell: Int32) -> Int32 { cell / 24 }

    @inline(__always)
    func socket(ofCell cell: Int32) -> Int32 { cell / 24 / days }

    @inline(__always)
    func hour(ofCell cell: Int32) -> Int32 { cell % 24 }

    /// The day number of `cell`'s date.
    @inline(__always)
    func day(ofCell cell: Int32) -> Int32 { firstDay &+ (cell / 24) % days }
}
