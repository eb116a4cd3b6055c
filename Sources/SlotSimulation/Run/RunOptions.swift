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
        process: ProcessPart = ProcessPart()
    ) {
        self.historyPath = historyPath
        self.progress = progress
        self.reproduce = reproduce
        self.stopAtFirstFailure = stopAtFirstFailure
        self.process = process
    }
}
