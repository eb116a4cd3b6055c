import SlotScheduler
import Synchronization

/// When a ``JournalStore`` writes a snapshot by itself, and how many past days it keeps.
///
/// A checkpoint (``JournalStore/checkpoint()``) bounds what opening replays; with `retainDays`,
/// each also releases the dates before `Rules.latestReleasableDate(at:)` minus `retainDays`
/// (`Scheduler.releaseDays(before:at:)`), so the files, like the memory, stay proportional to
/// the open horizon: the newest snapshot holds the retained days, the journal what followed.
public struct Checkpoints: Hashable, Sendable {
    /// A checkpoint after this many records since the last one; `nil`: not by count.
    public var afterRecords: Int?
    /// A checkpoint after this many journal bytes since the last one; `nil`: not by size.
    public var afterBytes: Int?
    /// Past days each checkpoint keeps (0: release everything before today in the catalog's
    /// westernmost zone); `nil`: release nothing.
    public var retainDays: Int?

    /// By default a checkpoint every 64 MiB of journal, releasing nothing.
    public init(afterRecords: Int? = nil, afterBytes: Int? = 64 << 20, retainDays: Int? = nil) {
        self.afterRecords = afterRecords
        self.afterBytes = afterBytes
        self.retainDays = retainDays
    }

    /// Only ``JournalStore/checkpoint()`` calls write snapshots.
    public static let manual = Checkpoints(afterRecords: nil, afterBytes: nil, retainDays: nil)

    func isDue(_ s: JournalStore.State) -> Bool {
        if let afterRecords, s.recordsSinceCheckpoint >= afterRecords { return true }
        if let afterBytes, s.bytesSinceCheckpoint >= afterBytes { return true }
        return false
    }
}

extension JournalStore {
    /// The checkpoint a command's caller found due, at that command's `now`. A failure is
    /// counted (``Statistics/failedCheckpoints``), not thrown: the command itself is durable, and
    /// the next threshold tries again (a failed write stops the store anyway).
    func automaticCheckpoint(at now: Instant) async {
        let cutoff = checkpoints.retainDays.map { rules.latestReleasableDate(at: now).adding(days: -max(0, $0)) }
        var failed = false
        do { try await checkpoint(releasing: cutoff.map { ($0, now) }) } catch { failed = true }
        state.withLock { s in
            s.checkpointClaimed = false
            if failed { s.failedCheckpoints += 1 } else { s.automaticCheckpoints += 1 }
        }
    }
}
