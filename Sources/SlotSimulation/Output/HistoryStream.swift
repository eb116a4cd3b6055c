import Foundation
import Synchronization

/// A threads-mode history written while the run goes, not kept in memory: every worker appends
/// its lines through its own ``HistorySink`` (a bounded buffer), which hands whole lines to the
/// stream's partial file (see ``OutputFile``) in one `write` each, so lines never interleave and
/// a killed run leaves a file readable up to its last complete line.
///
/// ``finish()`` flushes the file to disk and renames it into place; ``discard()`` removes it.
final class HistoryStream: Sendable {
    let output: OutputFile
    private let partial: PartialFile
    /// The first write error (`errno`), 0 while none.
    private let failure = Mutex<Int32>(0)
    private let nextIndex = Atomic<Int>(0)
    /// Whether each sink writes its operation's invoke line before the operation runs (so a kill
    /// never leaves a store change the history does not show as at least invoked), instead of
    /// once its buffer is full.
    let flushEachOperation: Bool

    var path: String { output.path }
    /// The file being written (the partial file until ``finish()``).
    var partialPath: String { partial.path }

    init(path: String, flushEachOperation: Bool) throws(SimulationIOError) {
        output = try OutputFile.check(path, kind: .history)
        partial = try output.create()
        self.flushEachOperation = flushEachOperation
    }

    /// A new operation number, unique in this history (it pairs an invoke with its return).
    func newIndex() -> Int { nextIndex.add(1, ordering: .relaxed).oldValue }

    /// Writes `bytes` (whole lines) in one piece.
    func append(_ bytes: [UInt8]) {
        failure.withLock { failed in
            guard failed == 0 else { return }
            if !bytes.withUnsafeBytes({ partial.write($0) }) { failed = errno }
        }
    }

    func finish() throws(SimulationIOError) {
        let failed = failure.withLock { $0 }
        if failed != 0 {
            partial.discard()
            throw SimulationIOError(
                path: path, problem: "cannot write the history: \(String(cString: strerror(failed)))")
        }
        try output.commit(partial)
    }

    func discard() { partial.discard() }
}

/// One worker's side of a ``HistoryStream``: encodes its operations' lines and buffers them
/// (at most ``limit`` bytes) before handing them to the stream.
struct HistorySink {
    let stream: HistoryStream
    private var format: HistoryFormat
    private var buffer: [UInt8] = []
    private let encoder = HistoryLine.makeEncoder()
    static let limit = 1 << 16

    init(_ stream: HistoryStream, _ p: PreparedScenario) {
        self.stream = stream
        format = HistoryFormat(p, cacheLimit: 1 << 12)
        buffer.reserveCapacity(Self.limit)
    }

    /// Numbers `op`, stamps its invoke time and records its invoke line; with
    /// ``HistoryStream/flushEachOperation`` the line is written before this returns.
    /// - Returns: the operation's number, for ``complete(_:index:clock:)``.
    mutating func invoke(_ op: inout TimedOperation, clock: MonotonicClock) -> Int {
        let index = stream.newIndex()
        op.invoke = clock.nanoseconds()
        append(Simulator.timedLine(op, index: index, time: op.invoke, isReturn: false, &format))
        if stream.flushEachOperation { flush() }
        return index
    }

    /// Stamps `op`'s completion time and records its return line.
    mutating func complete(_ op: inout TimedOperation, index: Int, clock: MonotonicClock) {
        op.complete = clock.nanoseconds()
        append(Simulator.timedLine(op, index: index, time: op.complete, isReturn: true, &format))
    }

    private mutating func append(_ line: HistoryLine) {
        line.appendJSON(to: &buffer, encoder: encoder)
        buffer.append(10)
        if buffer.count >= Self.limit { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        stream.append(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
