/// Slot occupancy, per-date availability and booking records for a set of stations.
///
/// The whole catalog in a ``Ledger``; one shard of stations in a ``Scheduler``. Occupancy is a
/// page per local date holding one cell per (socket, hour): checking a slot is one array load.
struct SlotBook: Sendable {
    // Field order is layout (see `LockedCells`, `BookLayoutTests`): the journal and the records,
    // which a reservation appends to, come first, so that their counts (`Column`) share the
    // 64-byte line of a `Scheduler` shard cell's lock word, which the call has already written;
    // then the fields it only reads (ids, day index, words, cells), which end in the cell's second
    // 128-byte block; the rest after.
    var journal = Column<JournalEntry>()
    var records = RecordColumn<BookingRecord>()
    /// High bits of every booking id this book assigns: its epoch and shard number (see
    /// `SlotBook+Restore.swift`).
    var idPrefix: UInt64
    /// The ids of records `0..<count`, when they were restored from events written with another
    /// shard layout; empty otherwise. Later records have native ids.
    var restoredIDs: [BookingID] = []
    /// Flat catalog socket index → index within the book of its station's shard. One table for
    /// every shard of a ``Scheduler`` (``localSockets(catalog:shardCount:)``), so the hot path
    /// reads one small array and not one per shard; a socket of another shard is never looked up
    /// here (``owns(station:)``).
    let localSocket: [Int32]
    /// `regular.count`, kept beside the array so the hot path does not read its header.
    let socketCount: Int
    /// Day number → block index, or -1 when the day has no block yet (regular hours, no bookings).
    var dayBlock: [Int32] = []
    var firstDay: Int32 = 0
    /// Days before this day number are released: no block, no held record, no new booking.
    var releasedBefore: Int32 = .min
    /// Changes (wrapping) whenever a day gets a block or blocks move: what a ``Scheduler``'s
    /// `SlotHints` compares to know that it must republish.
    var layoutVersion: UInt32 = 0
    /// Per block, one ``SocketDay`` (open and taken hours, 8 bytes) per local socket, so the hot
    /// check stays in cache.
    var words: [SocketDay] = []
    /// Per block, `socket * 24 + hour` → record index + 1, or 0 when free, or a hold index with
    /// ``holdBit`` set (see `SlotBook+Holds.swift`); where a slot's word and cell are is
    /// `SlotBook+Layout.swift`.
    var cells: [UInt32] = []
    let journaling: Bool
    let shard: UInt64
    /// `restoredIDs` inverted: id → record.
    var restoredRecords: [BookingID: Int32] = [:]
    /// Regular open hours per local socket.
    let regular: [UInt32]
    /// Stations with `station % shardCount == shard` are this book's.
    let shardCount: Int
    /// Blocks of released days, to be reused by new days (see `SlotBook+Retention.swift`).
    var freeBlocks: [Int32] = []
    var requestIDs: [Int32: RequestID] = [:]
    /// Journal entries dropped by releases before `journal[0]`.
    var journalBase = 0
    var changes: [AvailabilityChange] = []
    /// Every reschedule, in order (``Event/rescheduled(_:at:)`` entries point here).
    var moves: [MoveRecord] = []
    /// Record → its first entry in `moves`: where it was made, for its ``Event/reserved(_:)``.
    var firstMove: [Int32: Int32] = [:]
    /// Records before this index are all released: where a release looks for the new front.
    var releaseScan = 0
    /// After a restore across layouts from a snapshot with released bookings: the highest id
    /// number each (epoch, shard) group had assigned; ids of such a group up to it that no
    /// record holds were released.
    var releasedHighWater: [UInt64: UInt64] = [:]
    /// Every hold made in this book and not released, by hold index (see `SlotBook+Holds.swift`
    /// and `SlotBook+Retention.swift`).
    var holds = RecordColumn<HoldRecord>()
    /// (user, slot) → the index of that user's latest hold of that slot.
    var lastHold: [HoldKey: Int32] = [:]
    /// Record → the `now` it was checked in at (see `Decisions+CheckIn.swift`).
    var checkIns: [Int32: Int64] = [:]
    /// Record → the `now` it was checked out at (see `Decisions+CheckOut.swift`).
    var checkOuts: [Int32: Int64] = [:]
    /// Hour → the records whose reminder fires in it (see `SlotBook+Reminders.swift`).
    var reminders: [Int64: [Int32]] = [:]

    static let shardShift: UInt64 = 40
    /// How many record indices a book has: a cell stores `record + 1` below ``holdBit``, and
    /// request ids, check-ins and reminders key a record by `Int32`.
    static let recordLimit = Int(holdBit) &- 1
    /// The highest id number a restore accepts (`RestorePlan`): half of ``recordLimit``, so a
    /// restored book keeps 2^30 record indices for new bookings, more than memory holds.
    static let restorableNumberLimit = recordLimit / 2
    /// Booking id bits above the shard number: the epoch, 0 until a restore across layouts.
    static let epochShift: UInt64 = 52

    /// - Parameter localSockets: ``localSockets(catalog:shardCount:)``, computed once and shared by
    ///   every shard; computed here when `nil`.
    init(catalog: Catalog, shard: Int, of shardCount: Int, journaling: Bool, localSockets: [Int32]? = nil) {
        self.shard = UInt64(shard)
        self.shardCount = shardCount
        idPrefix = UInt64(shard) << Self.shardShift
        // Local sockets in flat order: a shard's sockets keep their order when a catalog change
        // appends sockets (``localSockets(catalog:shardCount:)`` numbers them the same way).
        var regular: [UInt32] = []
        for flat in 0..<catalog.socketCount where Int(catalog.stationOfSocket[flat]) % shardCount == shard {
            regular.append(catalog.regularHours[flat])
        }
        self.localSocket = localSockets ?? Self.localSockets(catalog: catalog, shardCount: shardCount)
        self.regular = regular
        socketCount = regular.count
        self.journaling = journaling
    }

    /// Flat catalog socket index → its index within the book of its station's shard, for
    /// `shardCount` shards (station `s` in shard `s % shardCount`).
    static func localSockets(catalog: Catalog, shardCount: Int) -> [Int32] {
        var next = [Int32](repeating: 0, count: shardCount)
        var table = [Int32](repeating: 0, count: catalog.socketCount)
        for flat in 0..<catalog.socketCount {
            let shard = Int(catalog.stationOfSocket[flat]) % shardCount
            table[flat] = next[shard]
            next[shard] += 1
        }
        return table
    }

    /// Whether `station` (a catalog index) is one of this book's.
    func owns(station: Int) -> Bool { station % shardCount == Int(shard) }

    /// Index of `ref`'s socket within this book.
    @inline(__always)
    func local(_ ref: SlotRef) -> Int { Int(localSocket[Int(ref.socket)]) }

    /// The block of `day`, created with regular hours on first use.
    @inline(__always)
    mutating func pageIndex(_ day: Int32) -> Int {
        let index = Int(day &- firstDay)
        if index >= 0, index < dayBlock.count {
            let block = dayBlock[index]
            if block >= 0 { return Int(block) }
        }
        return makeBlock(day)
    }

    private mutating func makeBlock(_ day: Int32) -> Int {
        if dayBlock.isEmpty {
            firstDay = day
        } else if day < firstDay {
            let grow = Int(firstDay - day) + 32
            dayBlock.insert(contentsOf: [Int32](repeating: -1, count: grow), at: 0)
            firstDay -= Int32(grow)
        }
        let index = Int(day - firstDay)
        if index >= dayBlock.count {
            dayBlock.append(contentsOf: [Int32](repeating: -1, count: index - dayBlock.count + 32))
        }
        layoutVersion &+= 1
        if let free = freeBlocks.popLast() {
            dayBlock[index] = free
            reset(block: Int(free))
            return Int(free)
        }
        let block = words.count / max(1, socketCount)
        dayBlock[index] = Int32(block)
        words.append(contentsOf: regular.lazy.map { SocketDay(open: $0) })
        cells.append(contentsOf: repeatElement(0, count: cellsPerBlock))
        return block
    }

    /// The block of `day` if it has one.
    @inline(__always)
    func existingBlock(_ day: Int32) -> Int? {
        let index = Int(day &- firstDay)
        guard index >= 0, index < dayBlock.count, dayBlock[index] >= 0 else { return nil }
        return Int(dayBlock[index])
    }

    /// Open hours of a local socket on `day`, without creating a block.
    func openHours(localSocket socket: Int, day: Int32) -> UInt32 {
        guard let block = existingBlock(day) else { return regular[socket] }
        return words[wordIndex(block: block, socket: socket)].openHours
    }

    /// Sets the open hours of a local socket in `block`.
    mutating func setOpenHours(_ mask: UInt32, localSocket socket: Int, block: Int) {
        words[wordIndex(block: block, socket: socket)].setOpenHours(mask)
    }

    /// The booking record occupying local `socket` at `hour` on `day` (`nil` for a free or held
    /// cell), without creating a block.
    func occupant(localSocket socket: Int, day: Int32, hour: Int) -> Int? {
        guard let block = existingBlock(day) else { return nil }
        return Self.record(inCell: cells[Self.cellIndex(word: wordIndex(block: block, socket: socket), hour: hour)])
    }

    /// The booking record a cell names, or `nil` for a free cell or a hold's.
    static func record(inCell cell: UInt32) -> Int? {
        cell == 0 || cell & holdBit != 0 ? nil : Int(cell - 1)
    }

    /// The record occupying `ref`, without creating a block.
    func occupant(_ ref: SlotRef) -> Int? { occupant(localSocket: local(ref), day: ref.day, hour: Int(ref.hour)) }

    /// Marks `ref` occupied by `record`, or free when `record` is `nil`.
    @inline(__always)
    mutating func occupy(_ ref: SlotRef, block: Int, record: Int?) {
        let w = wordIndex(ref, block: block)
        let cell = Self.cellIndex(word: w, hour: Int(ref.hour))
        words[w].setTaken(ref.hour, record != nil)
        cells[cell] = record.map { UInt32(truncatingIfNeeded: $0 &+ 1) } ?? 0
    }

    /// The id of `record`: restored, or the next in this book's epoch and shard, counted from 1.
    @inline(__always)
    func bookingID(record: Int) -> BookingID {
        let restored = restoredIDs.count
        return record < restored ? restoredIDs[record] : BookingID(idPrefix | UInt64(record - restored + 1))
    }

    /// The record index of `id` if this book holds it (made it, or restored it, and has not
    /// released it).
    func record(of id: BookingID) -> Int? {
        guard let index = assignedRecord(of: id), !isReleased(record: index) else { return nil }
        return index
    }

    /// The record index `id` has or had in this book, released or not.
    func assignedRecord(of id: BookingID) -> Int? {
        if id.rawValue >> Self.shardShift == idPrefix >> Self.shardShift {
            let index = Int(id.rawValue & ((1 << Self.shardShift) - 1)) - 1 + restoredIDs.count
            return index >= restoredIDs.count && index < records.count ? index : nil
        }
        return restoredRecords.isEmpty ? nil : restoredRecords[id].map(Int.init)
    }

    /// Whether record `index` (one this book made or restored) was released.
    @inline(__always)
    func isReleased(record index: Int) -> Bool {
        index < records.base || records[index].ref.day < releasedBefore
    }

    /// Reserves room for `bookings` records, filling and emptying it so its pages are faulted in
    /// now and not one by one on the booking path.
    mutating func prefault(bookings: Int) {
        guard bookings > 0 else { return }
        records.prefault(bookings, with: .placeholder)
        if journaling {
            journal.prefault(bookings, with: JournalEntry(kind: .reserved, reference: 0, at: 0))
        }
    }

    @inline(__always)
    mutating func log(_ kind: JournalEntry.Kind, _ reference: Int, at now: Int64) {
        if journaling { journal.append(JournalEntry(kind: kind, reference: Int32(reference), at: now)) }
    }
}

/// One booking as stored: 48 bytes.
struct BookingRecord: StoredRecord, Equatable {
    var user: UserID
    var start: Int64
    var createdAt: Int64
    var ref: SlotRef
    /// Reminder offset in seconds, or -1 for none.
    var reminder: Int32
    var status: Booking.Status

    /// A record that holds nothing: it stands for a released booking whose index a restore had
    /// to fill (its date is before every released date).
    static let placeholder = BookingRecord(
        user: 0, start: 0, createdAt: 0, ref: SlotRef(station: 0, socket: 0, day: .min, hour: 0), reminder: -1,
        status: .cancelled)

    static var released: BookingRecord { placeholder }
}

extension BookingRecord {
    /// The record of a booking of `request` starting at `start`, made at `createdAt`: the one
    /// place a request's reminder (seconds, clamped to `Int32`; none is -1) is stored.
    init(_ request: ResolvedRequest, start: Int64, createdAt: Int64, status: Booking.Status) {
        self.init(
            user: request.user, start: start, createdAt: createdAt, ref: request.ref,
            reminder: request.reminder.map { Int32(clamping: $0) } ?? -1, status: status)
    }
}

/// A compact journal line; ``Event`` values are built from it on demand.
struct JournalEntry: Sendable, Equatable {
    enum Kind: UInt8, Sendable {
        case reserved, cancelled, displaced, availabilityChanged, rescheduled, held, holdConfirmed, holdReleased
        case checkedIn
        case checkedOut
    }
    var kind: Kind
    /// A record index (`reserved`, `cancelled`, `displaced`, `holdConfirmed`, `checkedIn`), an index into
    /// `changes` or `moves`, or a hold index (`held`, `holdReleased`).
    var reference: Int32
    var at: Int64
}
