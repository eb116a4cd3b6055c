/// Slot occupancy, per-date availability and booking records for a set of stations.
///
/// The whole catalog in a ``Ledger``; one shard of stations in a ``Scheduler``. Occupancy is a
/// page per local date holding one cell per (socket, hour): checking a slot is one array load.
struct SlotBook: Sendable {
    /// High bits of every booking id this book assigns (the shard number).
    let idPrefix: UInt64
    /// Flat catalog socket index → index within this book, or -1.
    let localSocket: [Int32]
    /// Regular open hours per local socket.
    let regular: [UInt32]
    var pages: [DayPage?] = []
    var firstDay: Int32 = 0
    var records: [BookingRecord] = []
    var requestIDs: [Int32: RequestID] = [:]
    let journaling: Bool
    var journal: [JournalEntry] = []
    var changes: [AvailabilityChange] = []

    static let shardShift: UInt64 = 40

    init(catalog: Catalog, shard: Int, of shardCount: Int, journaling: Bool) {
        idPrefix = UInt64(shard) << Self.shardShift
        var localSocket = [Int32](repeating: -1, count: catalog.socketCount)
        var regular: [UInt32] = []
        for station in catalog.stations.indices where station % shardCount == shard {
            let base = Int(catalog.socketBase[station])
            for s in base..<(base + catalog.stations[station].sockets.count) {
                localSocket[s] = Int32(regular.count)
                regular.append(catalog.regularHours[s])
            }
        }
        self.localSocket = localSocket
        self.regular = regular
        self.journaling = journaling
    }

    struct DayPage: Sendable, Equatable {
        /// `socket * 24 + hour` → record index + 1, or 0 when free.
        var cells: [UInt32]
        /// Open hours per local socket on this date.
        var open: [UInt32]
    }

    @inline(__always)
    func cellIndex(_ ref: SlotRef) -> Int { Int(localSocket[Int(ref.socket)]) &* 24 &+ Int(ref.hour) }

    /// The page of `day`, created with regular hours on first use.
    @inline(__always)
    mutating func pageIndex(_ day: Int32) -> Int {
        let index = Int(day &- firstDay)
        if index >= 0, index < pages.count, pages[index] != nil { return index }
        return makePage(day)
    }

    private mutating func makePage(_ day: Int32) -> Int {
        if pages.isEmpty {
            firstDay = day
        } else if day < firstDay {
            let grow = Int(firstDay - day) + 32
            pages.insert(contentsOf: [DayPage?](repeating: nil, count: grow), at: 0)
            firstDay -= Int32(grow)
        }
        let index = Int(day - firstDay)
        if index >= pages.count {
            pages.append(contentsOf: [DayPage?](repeating: nil, count: index - pages.count + 32))
        }
        pages[index] = DayPage(cells: [UInt32](repeating: 0, count: regular.count * 24), open: regular)
        return index
    }

    /// Open hours of a local socket on `day`, without creating a page.
    func openHours(localSocket socket: Int, day: Int32) -> UInt32 {
        let index = Int(day &- firstDay)
        if index >= 0, index < pages.count, let page = pages[index] { return page.open[socket] }
        return regular[socket]
    }

    /// The record occupying `ref`, without creating a page.
    func occupant(_ ref: SlotRef) -> Int? {
        let index = Int(ref.day &- firstDay)
        guard index >= 0, index < pages.count, let page = pages[index] else { return nil }
        let cell = page.cells[cellIndex(ref)]
        return cell == 0 ? nil : Int(cell - 1)
    }

    func bookingID(record: Int) -> BookingID { BookingID(idPrefix | UInt64(record + 1)) }

    /// The record index of `id` if this book assigned it.
    func record(of id: BookingID) -> Int? {
        guard id.rawValue >> Self.shardShift == idPrefix >> Self.shardShift else { return nil }
        let index = Int(id.rawValue & ((1 << Self.shardShift) - 1)) - 1
        return index >= 0 && index < records.count ? index : nil
    }

    mutating func log(_ kind: JournalEntry.Kind, _ reference: Int, at now: Int64) {
        if journaling { journal.append(JournalEntry(kind: kind, reference: Int32(reference), at: now)) }
    }
}

/// One booking as stored: 48 bytes.
struct BookingRecord: Sendable, Equatable {
    var user: UserID
    var start: Int64
    var createdAt: Int64
    var ref: SlotRef
    /// Reminder offset in seconds, or -1 for none.
    var reminder: Int32
    var status: Booking.Status
}

/// A compact journal line; ``Event`` values are built from it on demand.
struct JournalEntry: Sendable, Equatable {
    enum Kind: UInt8, Sendable { case reserved, cancelled, displaced, availabilityChanged }
    var kind: Kind
    /// A record index, or an index into `changes`.
    var reference: Int32
    var at: Int64
}
