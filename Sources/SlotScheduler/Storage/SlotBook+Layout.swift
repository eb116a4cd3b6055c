/// Where a slot lives in a book's `words` and `cells`: the one statement of the layout, which
/// the checks, the writes, the prefetches and a ``Scheduler``'s `SlotHints` all follow.
///
/// Blocks sit end to end. Block *b* holds one ``SocketDay`` word per local socket, so a socket's
/// word is `b * sockets + socket`; and one cell per socket-hour, so an hour's cell is
/// `word * 24 + hour`.
extension SlotBook {
    /// Cells per socket-day: one per hour.
    static let hoursPerDay = 24

    /// The word of local `socket` in `block`, for a book of `sockets` local sockets.
    @inline(__always)
    static func wordIndex(block: Int, socket: Int, sockets: Int) -> Int { block &* sockets &+ socket }

    /// The cell of `hour` in the socket-day whose word is `word`.
    @inline(__always)
    static func cellIndex(word: Int, hour: Int) -> Int { word &* hoursPerDay &+ hour }

    /// The word of local `socket` in `block`.
    @inline(__always)
    func wordIndex(block: Int, socket: Int) -> Int {
        Self.wordIndex(block: block, socket: socket, sockets: socketCount)
    }

    /// The word of `ref`'s socket-day, its day's block being `block`.
    @inline(__always)
    func wordIndex(_ ref: SlotRef, block: Int) -> Int { wordIndex(block: block, socket: local(ref)) }

    /// The cells of one block.
    var cellsPerBlock: Int { socketCount &* Self.hoursPerDay }
}
