/// The directory a store keeps its files in, as the store uses it: whole-file reads at open, and
/// appends, syncs, renames and removals afterwards. ``PosixDirectory`` is the real one; the fault
/// tests substitute a simulated disk that records which writes were synced.
///
/// Names are plain file names inside the directory.
public protocol JournalFiles: Sendable {
    /// The directory's path, for error messages.
    var path: String { get }
    /// Takes the directory's lock for this process, or throws ``JournalError/Kind/locked``.
    func lock() throws(JournalError)
    /// Releases the lock.
    func unlock()
    /// The names in the directory, sorted.
    func list() throws(JournalError) -> [String]
    func read(_ name: String) throws(JournalError) -> [UInt8]
    /// Creates (or empties) a file and opens it for appending.
    func create(_ name: String) throws(JournalError) -> any JournalFile
    /// Opens an existing file for appending after its first `size` bytes (the rest is cut).
    func openForAppend(_ name: String, truncatingTo size: Int) throws(JournalError) -> any JournalFile
    func rename(_ from: String, to: String) throws(JournalError)
    func remove(_ name: String) throws(JournalError)
    /// Makes creations, renames and removals in the directory durable.
    func syncDirectory() throws(JournalError)
}

/// One open file, written at its end.
public protocol JournalFile: AnyObject, Sendable {
    /// Appends all of `bytes`.
    func write(_ bytes: [UInt8]) throws(JournalError)
    /// Makes the written bytes durable (`fdatasync`, or `fsync` with `metadata`).
    func sync(metadata: Bool) throws(JournalError)
    func close()
    /// A file to call ``sync(metadata:)`` on from one sync thread, for this file's bytes: its
    /// own descriptor, so that a write-back error reaches every thread's next sync (Linux
    /// reports one to each open file description once). By default the file itself.
    func syncHandle() throws(JournalError) -> any JournalFile
}

extension JournalFile {
    public func syncHandle() throws(JournalError) -> any JournalFile { self }
}
