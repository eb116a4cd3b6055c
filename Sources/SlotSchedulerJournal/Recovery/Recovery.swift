import SlotScheduler

/// What a directory holds, read back: the events to replay, where each came from, and where
/// the store goes on appending.
struct Recovered {
    /// The snapshot's bookings and overrides (empty without one).
    var snapshot = Snapshot(bookings: [], overrides: [])
    /// The catalog the snapshot's bookings were made under, when a catalog change made it.
    var catalog: Catalog.Record?
    /// The journals' events after the snapshot.
    var events: [Event] = []
    /// For each snapshot override, snapshot booking, then journal event (the order of the
    /// core's replay error indices), the file and byte offset of its record.
    var origins: [(file: String, offset: Int)] = []
    var shards: Int
    /// Whether `shards` was read from a file (else it is the opener's choice, for a new directory).
    var shardsKnown = false
    /// The journal to append to, and how many of its bytes are valid (the rest is a torn tail).
    var generation: UInt64 = 0
    var validLength = RecordFormat.headerSize
    var tornBytes = 0
    /// Whether the current journal must be created (fresh directory, or a torn header).
    var createJournal = false
    /// Files that a completed checkpoint made obsolete, or left over from an unfinished one.
    var obsolete: [String] = []
}

/// Reads a store's directory: the latest snapshot, then every journal after it in order.
///
/// A record that fails (cut short, checksum, decoding) at offset P of the newest journal, with
/// no valid record anywhere after P, is a torn tail: never acknowledged, cut off. Any other
/// failure refuses to open, naming the file and offset; nothing is changed.
enum Recovery {
    /// Refuses a directory that holds files but no journal and no snapshot (a user's directory
    /// given by mistake: journal:~/Documents), naming one of them. The store's own `LOCK` and
    /// unfinished `snapshot-<generation>.tmp` files do not count. `names` is the directory's listing.
    static func refuseForeign(_ names: [String], path: String) throws(JournalError) {
        let isStored = { (name: String) in
            FileNames.journalGeneration(name) != nil || FileNames.snapshotGeneration(name) != nil
        }
        guard !names.contains(where: isStored),
            let other = names.first(where: { $0 != "LOCK" && !FileNames.isSnapshotTemp($0) })
        else { return }
        throw JournalError(
            .corrupt, file: path,
            message: "not a journal store: it holds \(other) and no journal; give an empty or new directory")
    }

    static func read(_ files: any JournalFiles, shards requested: Int) throws(JournalError) -> Recovered {
        let names = try files.list()
        let snapshots = names.compactMap(FileNames.snapshotGeneration)
        let journals = names.compactMap(FileNames.journalGeneration)
        let temps = names.filter(FileNames.isSnapshotTemp)
        try refuseForeign(names, path: files.path)
        // A checkpoint writes generation + 1: the last generation would leave it none.
        if let top = (snapshots + journals).max(), top == .max {
            throw JournalError(
                .corrupt, file: files.path, message: "generation \(top) is the last one: no checkpoint could follow it")
        }
        var result = Recovered(shards: requested)
        // Only the store's own unfinished snapshots: a user's `draft.tmp` in the directory is kept.
        result.obsolete = temps
        let base = snapshots.max()
        if let base {
            result.obsolete += snapshots.filter { $0 < base }.map(FileNames.snapshot)
            try readSnapshot(files, generation: base, into: &result)
        }
        result.obsolete += journals.filter { $0 < base ?? 0 }.map(FileNames.journal)
        let live = journals.filter { $0 >= base ?? 0 }.sorted()
        guard let last = live.last else {
            if let first = journals.min(), base == nil {
                throw JournalError(
                    .corrupt, file: files.path + "/" + FileNames.journal(first),
                    message: "journals start at generation \(first) but there is no snapshot before them")
            }
            result.generation = base ?? 0
            result.createJournal = true
            return result
        }
        let first = base ?? 0
        for (i, generation) in live.enumerated() where generation != first + UInt64(i) {
            throw JournalError(
                .corrupt, file: files.path + "/" + FileNames.journal(first + UInt64(i)),
                message: "missing: the journals after generation \(first) are not contiguous")
        }
        for generation in live {
            try readJournal(files, generation: generation, isLast: generation == last, into: &result)
        }
        result.generation = last
        return result
    }

    /// A check-in or check-out a snapshot records after its bookings (a `reserved` event carries
    /// neither).
    struct SessionMark {
        var id: BookingID
        var user: UserID
        var at: Instant
        var isCheckOut: Bool
    }

    /// Gives the snapshot's bookings their check-ins and check-outs (written after the bookings):
    /// a check-out only to a booking checked in and fulfilled.
    static func apply(_ marks: [SessionMark], to snapshot: inout Snapshot, path: String, offset: Int)
        throws(JournalError)
    {
        guard !marks.isEmpty else { return }
        let index = Dictionary(snapshot.bookings.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for mark in marks {
            guard let i = index[mark.id], snapshot.bookings[i].user == mark.user else {
                throw JournalError(
                    .corrupt, file: path, offset: offset,
                    message: "snapshot checks in or out booking \(mark.id), not one of its own")
            }
            let b = snapshot.bookings[i]
            if mark.isCheckOut, b.checkedInAt != nil, b.checkedOutAt == nil, b.status == .fulfilled {
                snapshot.bookings[i].checkedOutAt = mark.at
            } else if !mark.isCheckOut, b.checkedInAt == nil {
                snapshot.bookings[i].checkedInAt = mark.at
            } else {
                throw JournalError(
                    .corrupt, file: path, offset: offset,
                    message:
                        "snapshot checks \(mark.isCheckOut ? "out" : "in") booking \(mark.id) twice or out of order")
            }
        }
    }

    static func readSnapshot(_ files: any JournalFiles, generation: UInt64, into result: inout Recovered)
        throws(JournalError)
    {
        let name = FileNames.snapshot(generation)
        let path = files.path + "/" + name
        let bytes = try files.read(name)
        let header = try readHeader(bytes, path: path, kind: .snapshot, generation: generation)
        result.shards = header.shards
        result.shardsKnown = true
        var offset = RecordFormat.headerSize
        var count = 0
        var checkIns: [SessionMark] = []
        while true {
            guard case .record(let record) = RecordFormat.read(bytes, at: offset) else {
                throw JournalError(.corrupt, file: path, offset: offset, message: snapshotProblem(bytes, offset))
            }
            switch record.type {
            case .snapshotEvents:
                // Overrides as availability changes, then bookings with their final status.
                for event in try decode(record, path: path, offset: offset) {
                    switch event {
                    case .availabilityChanged(let change, _) where result.snapshot.bookings.isEmpty:
                        result.snapshot.overrides.append(change)
                    case .reserved(let booking) where result.snapshot.holds.isEmpty && checkIns.isEmpty:
                        result.snapshot.bookings.append(booking)
                    case .held(let hold) where checkIns.isEmpty:
                        result.snapshot.holds.append(hold)
                    case .checkedIn(let id, let user, let at):
                        checkIns.append(SessionMark(id: id, user: user, at: at, isCheckOut: false))
                    case .checkedOut(let id, let user, let at):
                        checkIns.append(SessionMark(id: id, user: user, at: at, isCheckOut: true))
                    default:
                        throw JournalError(
                            .corrupt, file: path, offset: offset, message: "snapshot holds an unexpected event \(event)"
                        )
                    }
                    result.origins.append((file: path, offset: offset))
                    count += 1
                }
            case .snapshotRetention:
                var body = record.body
                do throws(DecodeError) {
                    let day = try body.i32("released before")
                    let count = Int(try body.u32("last id count"))
                    guard count <= 1 << 16 else { throw body.fail("\(count) last ids") }
                    var lastIDs: [BookingID] = []
                    for _ in 0..<count { lastIDs.append(BookingID(try body.u64("last id"))) }
                    guard body.isAtEnd else { throw body.fail("bytes after the last ids") }
                    result.snapshot.releasedBefore = LocalDate(dayNumber: day)
                    result.snapshot.lastIDs = lastIDs
                } catch {
                    throw JournalError(
                        .corrupt, file: path, offset: offset, message: "snapshot retention record: \(error)")
                }
            case .snapshotReschedules:
                result.snapshot.rescheduleRequests = try RequestMemo.decode(
                    record, naming: "reschedule request", path: path, offset: offset
                ).map { RememberedReschedule(user: $0.user, requestID: $0.requestID, booking: $0.booking, to: $0.slot) }
            case .snapshotMovedRequests:
                result.snapshot.movedRequests = try RequestMemo.decode(
                    record, naming: "moved request", path: path, offset: offset
                ).map { MovedRequest(user: $0.user, requestID: $0.requestID, booking: $0.booking, slot: $0.slot) }
            case .snapshotCatalog:
                var body = record.body
                do throws(DecodeError) {
                    result.catalog = try EventCoding.decodeCatalog(&body)
                    guard body.isAtEnd else { throw body.fail("bytes after the catalog") }
                } catch {
                    throw JournalError(
                        .corrupt, file: path, offset: offset, message: "snapshot catalog record: \(error)")
                }
            case .snapshotEnd:
                var body = record.body
                let total = try? body.u64("event count")
                guard total == UInt64(count), offset + record.size == bytes.count else {
                    throw JournalError(
                        .corrupt, file: path, offset: offset, message: "snapshot end does not match its \(count) events"
                    )
                }
                try apply(checkIns, to: &result.snapshot, path: path, offset: offset)
                return
            case .command:
                throw JournalError(.corrupt, file: path, offset: offset, message: "a journal record in a snapshot")
            }
            offset += record.size
        }
    }

    static func snapshotProblem(_ bytes: [UInt8], _ offset: Int) -> String {
        if case .invalid(let why) = RecordFormat.read(bytes, at: offset) { return "snapshot record: \(why)" }
        return "snapshot record"
    }

    static func readJournal(_ files: any JournalFiles, generation: UInt64, isLast: Bool, into result: inout Recovered)
        throws(JournalError)
    {
        let name = FileNames.journal(generation)
        let path = files.path + "/" + name
        let bytes = try files.read(name)
        // Past `written` the file holds only zeros: space the store preallocated, never written.
        let written = writtenEnd(bytes)
        if isLast, written <= RecordFormat.headerSize, (try? RecordFormat.readHeader(bytes)) == nil,
            isTornHeader(bytes[0..<written], generation: generation, shards: result.shardsKnown ? result.shards : nil)
        {
            // Created but not yet synced when the process stopped: nothing in it was acknowledged.
            result.createJournal = true
            result.tornBytes = written == 0 ? 0 : bytes.count
            return
        }
        let header = try readHeader(bytes, path: path, kind: .journal, generation: generation)
        if !result.shardsKnown {
            // No snapshot: the first journal's header says how the ids were assigned.
            result.shards = header.shards
            result.shardsKnown = true
        }
        guard header.shards == result.shards else {
            throw JournalError(
                .corrupt, file: path, offset: 12,
                message: "shard count \(header.shards) differs from the snapshot's \(result.shards)")
        }
        var offset = RecordFormat.headerSize
        while offset < bytes.count {
            switch RecordFormat.read(bytes, at: offset) {
            case .record(let record):
                guard record.type == .command else {
                    throw JournalError(.corrupt, file: path, offset: offset, message: "a snapshot record in a journal")
                }
                let events = try decode(record, path: path, offset: offset)
                result.events += events
                result.origins += repeatElement((file: path, offset: offset), count: events.count)
                offset += record.size
            case .invalid(let why):
                if offset >= written {
                    // Zeros to the end (a zero length is no record): the preallocated rest.
                    result.validLength = offset
                    result.tornBytes = 0
                    return
                }
                // In the newest journal, what follows the failure tells a power cut from damage.
                if isLast {
                    switch firstValidRecord(bytes, after: offset, before: written) {
                    case .none:
                        break  // a torn tail: the journal ends here
                    case .found(let next) where isLostWrite(bytes, at: offset, before: next):
                        // Zeros where a record belongs: a write the power cut lost while a later
                        // one reached the disk. No sync completed after it (one would have made
                        // it durable, and acknowledgements follow syncs in order), so nothing
                        // from here on was acknowledged: the journal ends here, as at a torn tail.
                        break
                    case .found(let next):
                        throw JournalError(
                            .corrupt, file: path, offset: offset,
                            message:
                                "\(why), followed by a valid record at byte \(next): not a torn tail; refusing to open"
                        )
                    case .undecided:
                        throw JournalError(
                            .corrupt, file: path, offset: offset,
                            message:
                                "\(why), followed by \(written - offset) bytes too costly to tell from a torn tail; refusing to open"
                        )
                    }
                }
                guard isLast else {
                    throw JournalError(
                        .corrupt, file: path, offset: offset, message: "\(why) in a journal that a newer one follows")
                }
                result.validLength = offset
                result.tornBytes = bytes.count - offset
                return
            }
        }
        result.validLength = offset
        result.tornBytes = 0
    }

    /// Whether `written` (a file's bytes before its trailing zeros) is the beginning of the
    /// header this store writes for journal `generation`: what a power cut leaves of a journal
    /// created but not yet synced. Anything else (another format version, someone's file) is
    /// read as a header, and refused, rather than replaced. Without a snapshot or an earlier
    /// journal the shard count, and so the checksum, is not known: those bytes are not compared.
    static func isTornHeader(_ written: ArraySlice<UInt8>, generation: UInt64, shards: Int?) -> Bool {
        let expected = RecordFormat.header(.init(kind: .journal, shards: shards ?? 0, generation: generation))
        return zip(written.indices, expected).allSatisfy { index, byte in
            let position = index - written.startIndex
            let unknown = shards == nil && (12..<16 ~= position || 24..<28 ~= position)
            return unknown || written[index] == byte
        }
    }

    /// The smallest unit a disk writes whole (a sector): a write lost in a power cut leaves its
    /// sectors as they were synced, the preallocated zeros.
    static let sectorSize = 512

    /// Whether the bytes from `offset` to `next` (a valid record), or to the end of `offset`'s
    /// sector if that comes first, are all zeros: a write lost in a power cut leaves them so,
    /// since its sectors keep their synced zeros. A record whose frame alone reads zero, its
    /// payload still there, is damage, not a lost write.
    static func isLostWrite(_ bytes: [UInt8], at offset: Int, before next: Int) -> Bool {
        let end = min(next, (offset / sectorSize + 1) * sectorSize, bytes.count)
        return end >= offset + RecordFormat.frameSize && bytes[offset..<end].allSatisfy { $0 == 0 }
    }

    /// What follows a record that cannot be read: a valid record, none (a torn tail), or
    /// `undecided` when telling would checksum more than ``scanBudget(_:)`` bytes.
    enum Following: Equatable {
        case none
        case found(Int)
        case undecided
    }

    /// The bytes ``firstValidRecord(_:after:before:)`` may checksum for a tail of `count`
    /// bytes: eight times the tail and a MiB. A torn tail's positions are mostly refused by
    /// their length alone; a tail crafted to claim a long record at every byte would cost its
    /// square.
    static func scanBudget(_ count: Int) -> Int { 8 * count + (1 << 20) }

    /// The first valid record after `offset` and before `written` (a record starts with a
    /// length of at least 2, so not in the zeros after it), if any.
    /// - Complexity: O(n) positions, each refused by its length bound or its type and version
    ///   bytes, or checked by CRC; the CRCs together within ``scanBudget(_:)``.
    static func firstValidRecord(_ bytes: [UInt8], after offset: Int, before written: Int) -> Following {
        var budget = scanBudget(written - offset)
        var q = offset + 1
        while q < written, q + RecordFormat.frameSize + 2 <= bytes.count {
            let length =
                Int(bytes[q]) | Int(bytes[q + 1]) << 8 | Int(bytes[q + 2]) << 16 | Int(bytes[q + 3]) << 24
            let payload = q + RecordFormat.frameSize
            if length >= 2, length <= RecordFormat.maxPayload, length <= bytes.count - payload,
                RecordFormat.RecordType(rawValue: bytes[payload]) != nil,
                bytes[payload + 1] == RecordFormat.recordVersion
            {
                budget -= length
                guard budget >= 0 else { return .undecided }
                if case .record = RecordFormat.read(bytes, at: q) { return .found(q) }
            }
            q += 1
        }
        return .none
    }

    /// The length of `bytes` without its trailing zeros.
    /// - Complexity: O(length of the zero tail).
    static func writtenEnd(_ bytes: [UInt8]) -> Int {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    static func readHeader(_ bytes: [UInt8], path: String, kind: RecordFormat.FileKind, generation: UInt64)
        throws(JournalError) -> RecordFormat.Header
    {
        let header: RecordFormat.Header
        do { header = try RecordFormat.readHeader(bytes) } catch {
            throw JournalError(.corrupt, file: path, offset: error.offset, message: "header: \(error.problem)")
        }
        guard header.kind == kind, header.generation == generation else {
            throw JournalError(
                .corrupt, file: path, offset: 0,
                message:
                    "header says \(header.kind) generation \(header.generation); the name says \(kind) \(generation)")
        }
        return header
    }

    static func decode(_ record: RecordFormat.Record, path: String, offset: Int) throws(JournalError) -> [Event] {
        do { return try RecordFormat.decodeEvents(record) } catch {
            throw JournalError(
                .corrupt, file: path, offset: offset,
                message: "record passes its checksum but cannot be decoded: \(error)")
        }
    }
}
