import SlotScheduler
import Synchronization

/// The booking rules of one instance, durable in a directory of append-only files: the
/// thread-safe `Scheduler` in memory, and a journal of every command it accepted.
///
/// **Acknowledged means durable.** A command returns (a booking, a cancellation, a displacement
/// list) only after its record is written and `fdatasync`'ed. A refusal or a query returns only
/// after everything it could have seen is durable too, so no caller ever observes a state that
/// a crash could undo.
///
/// **Group commit.** Callers append their records to one buffer; a sync thread of the store's
/// own takes the whole buffer, writes it and syncs once, then wakes every caller that sync
/// covered. Up to 8 syncs are in flight at once: while one is, the next thread
/// writes what arrived since and issues its own (see `serveSyncs(_:)`). Throughput grows with
/// the number of concurrent callers instead of being one sync per booking.
///
/// **Recovery.** Opening reads the latest snapshot and the journals after it (see the
/// FileFormat article), cuts a torn tail, and refuses a corrupt record that valid ones follow.
/// One store per directory: a second opener gets ``JournalError/Kind/locked``.
///
/// Order: commands run on the scheduler and append their record under one lock, so the journal
/// holds them in the order they took effect. The in-memory work is microseconds; the sync is
/// shared.
public final class JournalStore: BookingService {
    /// The rules in force: the policy given at opening, with the catalog the directory holds
    /// once a catalog change was made (``catalogIsStored``), else the one given.
    public var rules: Rules { scheduler.rules }
    /// Whether the store runs with the catalog its directory holds (a catalog change made it)
    /// rather than the one it was opened with; `rules.catalog.revision` says which revision.
    public let catalogIsStored: Bool
    /// The scheduler the journal feeds (a catalog change replaces it). Read it freely; commands
    /// must go through the store.
    var scheduler: Scheduler { state.withLock { $0.scheduler } }
    let files: any JournalFiles
    let state: Mutex<State>
    /// False: each caller writes and syncs its own record (the baseline group commit is measured against).
    public let groupCommit: Bool
    /// When the store writes a snapshot by itself, and how many days it retains.
    public let checkpoints: Checkpoints
    /// The threads that write and sync (``serveSyncs(_:)``), and the order of their writes.
    let syncThreads: SyncThreads
    let writeOrder = Mutex<Void>(())

    /// Syncs in flight at most with group commit (one without): as many as the benchmark's
    /// callers (the FileFormat article, Writing).
    static let syncThreadCount = 8

    /// Opens (or creates) the store in `directory`, replaying what it holds.
    ///
    /// - Parameters:
    ///   - directory: the store's directory: empty, new, or holding this store's files.
    ///   - rules: the catalog and policy to enforce.
    ///   - shards: the scheduler's shards for a new directory; an existing one keeps its own.
    ///   - groupCommit: share one sync among concurrent callers (the default).
    ///   - checkpoints: when to write a snapshot by itself, and the days to retain (see ``Checkpoints``).
    /// - Throws: ``JournalError`` naming the file (and offset) that prevents opening.
    public convenience init(
        directory: String, rules: Rules, shards: Int = 16, groupCommit: Bool = true,
        checkpoints: Checkpoints = Checkpoints()
    ) throws(JournalError) {
        try self.init(
            files: try PosixDirectory(path: directory), rules: rules, shards: shards, groupCommit: groupCommit,
            checkpoints: checkpoints)
    }

    /// Opens the store on any ``JournalFiles`` (the fault tests pass a simulated disk).
    public init(
        files: any JournalFiles, rules: Rules, shards: Int = 16, groupCommit: Bool = true,
        checkpoints: Checkpoints = Checkpoints()
    ) throws(JournalError) {
        // A user's directory is refused before the lock, so that the refusal leaves it as it was
        // (no `LOCK` file); `Recovery.read` checks again under the lock, where nothing else changes it.
        try Recovery.refuseForeign(try files.list(), path: files.path)
        try files.lock()
        do throws(JournalError) {
            let recovered = try Recovery.read(files, shards: max(1, min(shards, 4096)))
            let opening = try Self.rules(rules, stored: recovered.catalog, path: files.path)
            let scheduler: Scheduler
            do {
                // The files are the journal: the scheduler keeps none in memory.
                scheduler = try Scheduler.restoring(
                    rules: opening, shards: recovered.shards, snapshot: recovered.snapshot,
                    replaying: recovered.events, journaling: false)
            } catch {
                let origin = recovered.origins.indices.contains(error.index) ? recovered.origins[error.index] : nil
                throw JournalError(
                    .replay, file: origin?.file ?? files.path, offset: origin?.offset,
                    message: "\(error.problem) (does the directory belong to these stations?)")
            }
            let file = try Self.openJournal(files, recovered)
            for name in recovered.obsolete { try files.remove(name) }
            if !recovered.obsolete.isEmpty { try files.syncDirectory() }
            self.catalogIsStored = recovered.catalog != nil
            self.files = files
            self.groupCommit = groupCommit
            self.checkpoints = checkpoints
            let threads = groupCommit ? Self.syncThreadCount : 1
            var state = State(
                scheduler: scheduler, file: file, generation: recovered.generation, shards: recovered.shards,
                recoveredEvents: recovered.origins.count, tornBytes: recovered.tornBytes)
            state.idle = threads
            state.syncHandles = Array(repeating: nil, count: threads)
            self.state = Mutex(state)
            self.syncThreads = SyncThreads(count: threads)
        } catch {
            files.unlock()
            throw error
        }
        // The threads hold the store weakly: one never closed is still freed (see deinit).
        let started = syncThreads.start { [weak self] thread in self?.serveSyncs(thread: thread) }
        if !started {
            syncThreads.stop()
            state.withLock { $0.file }?.close()
            files.unlock()
            throw JournalError(.io, file: files.path, message: "cannot start the sync threads")
        }
    }

    deinit { syncThreads.stop() }

    /// The rules to open with: `given`, or its policy with the catalog a snapshot stored.
    static func rules(_ given: Rules, stored: Catalog.Record?, path: String) throws(JournalError) -> Rules {
        guard let stored else { return given }
        do throws(InvalidValue) {
            return try Rules(catalog: try Catalog(record: stored), policy: given.policy)
        } catch {
            throw JournalError(.corrupt, file: path, message: "the stored catalog: \(error)")
        }
    }

    /// Opens the current journal for appending: a new one with its header synced, or the
    /// existing one cut to its valid length (synced before anything is acknowledged).
    static func openJournal(_ files: any JournalFiles, _ recovered: Recovered) throws(JournalError) -> any JournalFile {
        let name = FileNames.journal(recovered.generation)
        if recovered.createJournal {
            return try createJournal(files, generation: recovered.generation, shards: recovered.shards)
        }
        let file = try files.openForAppend(name, truncatingTo: recovered.validLength)
        if recovered.tornBytes > 0 {
            do { try file.sync(metadata: true) } catch {
                file.close()
                throw error
            }
        }
        return file
    }

    /// Creates journal `generation` with its header, synced, and the directory entry synced.
    static func createJournal(_ files: any JournalFiles, generation: UInt64, shards: Int) throws(JournalError)
        -> any JournalFile
    {
        let file = try files.create(FileNames.journal(generation))
        do {
            try file.write(RecordFormat.header(.init(kind: .journal, shards: shards, generation: generation)))
            try file.sync(metadata: true)
            try files.syncDirectory()
        } catch {
            file.close()
            throw error
        }
        return file
    }

    /// How the store is doing: what recovery found, and records and syncs since open.
    public struct Statistics: Hashable, Sendable {
        /// Snapshot overrides and bookings plus journal events read at open.
        public var recoveredEvents: Int
        /// Bytes of torn tail cut at open.
        public var tornBytes: Int
        public var records: Int
        public var syncs: Int
        public var generation: UInt64
        /// Checkpoints the store wrote by itself, and those that failed (retried at the next threshold).
        public var automaticCheckpoints: Int
        public var failedCheckpoints: Int
        /// The write or sync that failed, after which the store takes no more commands: it is
        /// not ready, and only reopening (recovery) makes it usable again.
        public var failure: JournalError?
        /// Whether ``JournalStore/close()`` was called.
        public var isClosed: Bool
    }

    public var statistics: Statistics {
        state.withLock {
            Statistics(
                recoveredEvents: $0.recoveredEvents, tornBytes: $0.tornBytes, records: $0.records, syncs: $0.syncs,
                generation: $0.generation, automaticCheckpoints: $0.automaticCheckpoints,
                failedCheckpoints: $0.failedCheckpoints, failure: $0.failure, isClosed: $0.closed)
        }
    }

    /// Writes what is buffered, closes the journal and releases the directory's lock. Commands
    /// after this throw ``JournalError/Kind/closed``.
    ///
    /// After a failed write or sync nothing more is written: what is buffered then belongs to
    /// commands already refused (written after a gap, it could make the journal unreadable).
    public func close() async {
        await becomeExclusive()
        let (wasClosed, batch, end, file) = state.withLock { s in
            defer {
                s.closed = true
                s.buffer.removeAll()
                s.recordEnds.removeAll()
            }
            return (s.closed, s.failure == nil ? s.buffer : [], s.appended, s.file)
        }
        if !batch.isEmpty {
            var failure: JournalError?
            do throws(JournalError) {
                guard let file else { throw JournalError(.closed, file: files.path, message: "the store is closed") }
                try file.write(batch)
                try file.sync(metadata: false)
            } catch { failure = error }
            state.withLock { s in
                if let failure { s.failure = s.failure ?? failure } else { s.durable = max(s.durable, end) }
            }
        }
        endExclusive()
        guard !wasClosed else { return }
        state.withLock { s in
            s.closeSyncHandles()
            s.file = nil
        }
        syncThreads.stop()
        file?.close()
        files.unlock()
    }
}
