import Foundation
import SlotScheduler

/// How a run reports and where it writes.
public struct RunOptions: Sendable {
    /// Write the history as JSON lines here.
    public var historyPath: String?
    /// Print a progress line on standard error when a run takes more than two seconds.
    public var progress: Bool
    /// The command line that reproduces this run, printed on failure.
    public var reproduce: String
    /// Stop at the first invariant violation (the default) or keep counting.
    public var stopAtFirstFailure: Bool
    /// Threads mode: which of several processes sharing one store this is.
    public var process: ProcessPart
    /// Threads mode: write each operation's invoke line to the history file before the operation
    /// runs (one `write` per operation), so a run killed at any moment leaves a history that shows
    /// every change the store may have made; else lines are written in 64 KiB pieces.
    public var flushHistoryEachOperation: Bool
    /// Threads mode: record times on the machine's monotonic clock (since boot) rather than since
    /// the run began, so the histories of successive runs against one store share a time line.
    public var sharedClock: Bool

    /// Process `index` of `count` processes driving one shared store: it runs its share of the
    /// workload, numbers its workers after the other processes' and records times on the
    /// machine's monotonic clock, so the histories can be checked together.
    public struct ProcessPart: Sendable, Equatable {
        public var index: Int
        public var count: Int
        public init(index: Int = 0, count: Int = 1) {
            self.index = index
            self.count = max(1, count)
        }
    }

    public init(
        historyPath: String? = nil, progress: Bool = false, reproduce: String = "", stopAtFirstFailure: Bool = true,
        process: ProcessPart = ProcessPart(), flushHistoryEachOperation: Bool = false, sharedClock: Bool = false
    ) {
        self.flushHistoryEachOperation = flushHistoryEachOperation
        self.sharedClock = sharedClock
        self.historyPath = historyPath
        self.progress = progress
        self.reproduce = reproduce
        self.stopAtFirstFailure = stopAtFirstFailure
        self.process = process
    }
}
