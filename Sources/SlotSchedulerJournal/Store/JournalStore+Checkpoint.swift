import SlotScheduler
import Synchronization

extension JournalStore {
    /// Writes a snapshot and starts a new journal, so that opening replays only what follows.
    ///
    /// Steps, each durable before the next: (1) holding the file alone, flush the buffer to journal N and take
    /// the scheduler's snapshot at exactly that point; (2) create journal N+1 (header synced,
    /// directory synced) and switch appends to it; (3) write `snapshot-(N+1).tmp`, sync it, rename
    /// it to `snapshot-(N+1).snap`, sync the directory; (4) remove journal N and snapshot N. A
    /// crash between steps leaves a directory that opens to the same state: before (3) completes,
    /// recovery reads snapshot N and journals N and N+1.
    ///
    /// Commands keep running; they wait for their sync only while steps (1) and (2) hold the
    /// file alone. After a failed write or sync it throws that failure and writes nothing.
    /// - Complexity: O(bookings + overrides) to write the snapshot.
    public func checkpoint() async throws {
        try await checkpoint(releasing: nil)
    }

    /// Releases the dates before `cutoff` (`Scheduler.releaseDays(before:at:)`) and writes a
    /// snapshot at once, as ``checkpoint()``: the release is durable when this returns, and the
    /// files then hold only what the scheduler holds. A crash before that reopens the state
    /// without the release (and with every acknowledged command), which is as correct: release again.
    ///
    /// - Throws: `RetentionError` (before anything changes) for a cutoff after
    ///   `Rules.latestReleasableDate(at:)`, or the ``JournalError`` of a failed write.
    public func checkpoint(releasingDaysBefore cutoff: LocalDate, at now: Instant) async throws {
        let latest = rules.latestReleasableDate(at: now)
        guard cutoff <= latest else { throw RetentionError(cutoff: cutoff, latest: latest, now: now) }
        try await checkpoint(releasing: (cutoff, now))
    }

    func checkpoint(releasing: (cutoff: LocalDate, now: Instant)?) async throws {
        await becomeExclusive()
        // After a failed write the scheduler holds commands that were refused: a snapshot of it
        // would make them durable.
        if let failure = state.withLock({ $0.failure }) {
            endExclusive()
            throw failure
        }
        let (snapshot, batch, end, oldFile, generation, shards) = state.withLock { s in
            let start = s.appended - UInt64(s.buffer.count)
            defer {
                s.buffer.removeAll(keepingCapacity: true)
                s.recordEnds.removeAll()
                s.recordsSinceCheckpoint = 0
                s.bytesSinceCheckpoint = 0
                s.catalogChanged = false
            }
            // Commands run under this lock: none sees a half-released scheduler.
            if let releasing { try? s.scheduler.releaseDays(before: releasing.cutoff, at: releasing.now) }
            return (
                (s.scheduler.snapshot(), s.scheduler.rules.catalog), s.buffer, start + UInt64(s.buffer.count), s.file,
                s.generation, s.shards
            )
        }
        let next = generation + 1
        var newFile: (any JournalFile)?
        var failure: JournalError?
        do throws(JournalError) {
            guard let oldFile else { throw JournalError(.closed, file: files.path, message: "the store is closed") }
            if !batch.isEmpty {
                try oldFile.write(batch)
                try oldFile.sync(metadata: false)
            }
            newFile = try Self.createJournal(files, generation: next, shards: shards)
        } catch { failure = error }
        state.withLock { s in
            if let failure {
                s.failure = s.failure ?? failure
                return
            }
            s.durable = max(s.durable, end)
            if !batch.isEmpty { s.syncs += 1 }
            s.closeSyncHandles()
            s.file = newFile
            s.generation = next
        }
        // Gives the file back to the sync threads, waking whom the write covered (or failing them).
        endExclusive()
        if let failure { throw failure }
        oldFile?.close()
        try writeSnapshot(snapshot.0, catalog: snapshot.1, generation: next, shards: shards)
        try files.remove(FileNames.journal(generation))
        try files.remove(FileNames.snapshot(generation))
        try files.syncDirectory()
    }

    /// Writes `snapshot-<generation>.snap` through a temporary file, synced and renamed; with the
    /// catalog the snapshot's bookings were made under when a catalog change made it (revision > 0).
    func writeSnapshot(_ snapshot: Snapshot, catalog: Catalog? = nil, generation: UInt64, shards: Int)
        throws(JournalError)
    {
        // Overrides first, then bookings with their final status, then the holds that still have
        // their slot: the order the core restores; then the check-ins and check-outs (a `reserved`
        // event carries neither).
        let events =
            snapshot.overrides.map { Event.availabilityChanged($0, at: Instant(secondsSinceEpoch: 0)) }
            + snapshot.bookings.map { Event.reserved($0) } + snapshot.holds.map { Event.held($0) }
            + snapshot.bookings.compactMap { b in b.checkedInAt.map { Event.checkedIn(b.id, user: b.user, at: $0) } }
            + snapshot.bookings.compactMap { b in b.checkedOutAt.map { Event.checkedOut(b.id, user: b.user, at: $0) } }
        var bytes = RecordFormat.header(.init(kind: .snapshot, shards: shards, generation: generation))
        var start = 0
        while start < events.count {
            let end = min(events.count, start + 4096)
            RecordFormat.events(.snapshotEvents, events[start..<end], into: &bytes)
            start = end
        }
        RequestMemo.frame(
            .snapshotReschedules,
            snapshot.rescheduleRequests.map {
                RequestMemo(user: $0.user, requestID: $0.requestID, booking: $0.booking, slot: $0.to)
            }, into: &bytes)
        RequestMemo.frame(
            .snapshotMovedRequests,
            snapshot.movedRequests.map {
                RequestMemo(user: $0.user, requestID: $0.requestID, booking: $0.booking, slot: $0.slot)
            }, into: &bytes)
        if let releasedBefore = snapshot.releasedBefore {
            RecordFormat.frame(.snapshotRetention, into: &bytes) { w in
                w.i32(releasedBefore.dayNumber)
                let lastIDs = snapshot.lastIDs ?? []
                w.u32(UInt32(truncatingIfNeeded: lastIDs.count))
                for id in lastIDs { w.u64(id.rawValue) }
            }
        }
        if let catalog, catalog.revision > 0 {
            RecordFormat.frame(.snapshotCatalog, into: &bytes) { EventCoding.encode(catalog.record, into: &$0) }
        }
        RecordFormat.frame(.snapshotEnd, into: &bytes) { $0.u64(UInt64(events.count)) }
        let temp = FileNames.snapshotTemp(generation)
        let file = try files.create(temp)
        defer { file.close() }
        try file.write(bytes)
        try file.sync(metadata: true)
        try files.rename(temp, to: FileNames.snapshot(generation))
        try files.syncDirectory()
    }
}
