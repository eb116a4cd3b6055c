import SlotScheduler

extension JournalStore {
    /// Everything the lock guards: the append buffer and positions, the waiting callers, and
    /// the current journal. Positions count bytes appended since open.
    struct State {
        var buffer: [UInt8] = []
        /// The previous write's buffer, emptied, kept for its capacity.
        var spare: [UInt8] = []
        /// End of the last appended record.
        var appended: UInt64 = 0
        /// Where each buffered record ends (only read with group commit off).
        var recordEnds: [UInt64] = []
        /// End of the last record known durable.
        var durable: UInt64 = 0
        /// The ends of the batches written to the journal whose syncs have not all ended, in
        /// write order, each with whether its own sync succeeded: ``durable`` moves past a batch
        /// only once every earlier batch's sync has succeeded too (``syncEnded(_:)``).
        var inFlight: [(end: UInt64, synced: Bool)] = []
        /// Sync threads woken to take the buffer that have not taken it yet; threads between
        /// taking a buffer and the end of its sync; threads waiting for a post.
        var claimed = 0
        var syncing = 0
        var idle = 0
        /// A checkpoint or close waits for the sync threads to finish (none is woken meanwhile),
        /// or holds the file alone.
        var exclusiveWanted = false
        var exclusive = false
        /// Each sync thread's own descriptor of the current journal, opened at its first sync
        /// (`JournalFile.syncHandle()`), closed when the journal changes or the store closes.
        var syncHandles: [(any JournalFile)?] = []
        /// Set by a failed write or sync: every later command fails, nothing more is acknowledged.
        var failure: JournalError?
        var closed = false
        var waiters: [Waiter] = []
        var file: (any JournalFile)?
        var generation: UInt64
        var shards: Int
        var recoveredEvents: Int
        var tornBytes: Int
        var records = 0
        var syncs = 0
        /// Records and bytes appended since the last checkpoint (or open).
        var recordsSinceCheckpoint = 0
        var bytesSinceCheckpoint = 0
        /// A caller has taken the automatic checkpoint that is due and will run it.
        var checkpointClaimed = false
        var automaticCheckpoints = 0
        var failedCheckpoints = 0
        /// The scheduler in force: a catalog change replaces it (`Scheduler.changingCatalog`).
        var scheduler: Scheduler
        /// A catalog change was journalled: the next checkpoint, which its command runs, stores
        /// the new catalog, so the directory reopens with it whatever catalog it is given.
        var catalogChanged = false

        init(
            scheduler: Scheduler, file: any JournalFile, generation: UInt64, shards: Int, recoveredEvents: Int,
            tornBytes: Int
        ) {
            self.scheduler = scheduler
            self.file = file
            self.generation = generation
            self.shards = shards
            self.recoveredEvents = recoveredEvents
            self.tornBytes = tornBytes
        }

        /// Throws if the store can take no more commands.
        func checkUsable(_ path: String) throws(JournalError) {
            if let failure { throw failure }
            if closed { throw JournalError(.closed, file: path, message: "the store is closed") }
        }

        /// Appends one command's events as a record.
        mutating func append(_ events: [Event]) {
            guard !events.isEmpty else { return }
            let before = buffer.count
            RecordFormat.events(.command, events, into: &buffer)
            appended += UInt64(buffer.count - before)
            recordEnds.append(appended)
            records += 1
            recordsSinceCheckpoint += 1
            bytesSinceCheckpoint += buffer.count - before
        }
    }

    /// A caller waiting until `target` is durable.
    struct Waiter {
        var target: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }
}

extension JournalStore.State {
    /// End of the bytes a sync thread has taken to write (the buffer holds the rest).
    var taken: UInt64 { appended - UInt64(buffer.count) }

    /// Records that the sync of the batch ending at `end` succeeded, and moves ``durable`` over
    /// every batch, in write order, whose sync and every earlier one succeeded.
    ///
    /// A later sync can end first. If it raised ``durable`` alone, an earlier sync that then
    /// failed (its write-back error reported to its descriptor only) would come too late: the
    /// later caller acknowledged, over a record that never reached the disk.
    /// - Complexity: O(*k*) in the syncs in flight (at most one per sync thread).
    mutating func syncEnded(_ end: UInt64) {
        if let index = inFlight.firstIndex(where: { $0.end == end }) { inFlight[index].synced = true }
        while let first = inFlight.first, first.synced {
            durable = max(durable, first.end)
            inFlight.removeFirst()
        }
    }

    /// Whether to wake an idle sync thread for bytes that no write has taken and no woken
    /// thread will take: true claims it (the caller must post). A caller whose bytes a thread
    /// has taken waits for that thread's sync; if no thread is idle, the next to finish its
    /// sync takes the bytes (``JournalStore/serveSyncs(_:)``).
    mutating func claimSyncThread() -> Bool {
        guard failure == nil, !exclusive, !exclusiveWanted, claimed == 0, idle > 0, appended > taken else {
            return false
        }
        claimed += 1
        idle -= 1
        return true
    }

    /// Closes the sync threads' descriptors (no thread is writing or syncing).
    mutating func closeSyncHandles() {
        for case let handle? in syncHandles where handle !== file { handle.close() }
        syncHandles = syncHandles.map { _ in nil }
    }
}
