import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file the simulator writes (a history, a report, a page, a shrunk or imported scenario),
/// checked before the run and written so that it never replaces a file it did not write:
///
/// - ``check(_:kind:)`` refuses, before any work, a directory, a device, a fifo, a socket, a
///   symbolic link to one of those or to nothing, a path in a folder that does not exist, and a
///   regular file that is neither empty nor recognized as this ``OutputKind`` written by
///   schedule-sim (so a second run can replace the first one's report, never a file of yours);
/// - ``write(_:)`` (and a history stream) writes to a new `NAME.PID.N.partial` beside the target
///   (never an existing file), registered with ``PartialFiles`` so an interrupted run removes it;
/// - then flushes it to disk and renames it over the target: a regular file or nothing.
///
/// A symbolic link to such a file is followed: the file it names is replaced, the link kept.
public struct OutputFile: Sendable, Hashable {
    /// The path as given (for messages).
    public let path: String
    /// The file that is replaced: `path`, or the regular file a symbolic link at `path` names.
    public let target: String
    /// What is written there.
    public let kind: OutputKind

    /// Checks that `path` can be written without destroying a file schedule-sim did not write.
    /// - Throws: ``SimulationIOError`` naming the path and what is in the way.
    public static func check(_ path: String, kind: OutputKind) throws(SimulationIOError) -> OutputFile {
        func refuse(_ problem: String) -> SimulationIOError { SimulationIOError(path: path, problem: problem) }
        if path.isEmpty { throw refuse("an empty file name") }
        var info = stat()
        var target = path
        if lstat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFLNK {
                guard stat(path, &info) == 0 else {
                    throw refuse("is a symbolic link to nothing; give the file itself")
                }
                guard info.st_mode & S_IFMT == S_IFREG else {
                    throw refuse(
                        "is a symbolic link to \(Self.kind(info.st_mode)); schedule-sim writes only regular files")
                }
                guard let resolved = realpath(path, nil) else { throw refuse("cannot resolve the symbolic link") }
                target = String(cString: resolved)
                free(resolved)
            } else if info.st_mode & S_IFMT != S_IFREG {
                throw refuse(
                    "is \(Self.kind(info.st_mode)); schedule-sim writes only regular files and replaces nothing else")
            }
            try checkReplaceable(target, kind: kind, refuse: refuse)
        } else if errno != ENOENT {
            throw refuse("cannot be examined: \(String(cString: strerror(errno)))")
        }
        let folder = directory(of: target)
        var folderInfo = stat()
        guard stat(folder, &folderInfo) == 0, folderInfo.st_mode & S_IFMT == S_IFDIR else {
            throw refuse("the folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else { throw refuse("the folder \(folder) is not writable") }
        return OutputFile(path: path, target: target, kind: kind)
    }

    /// Refuses the existing regular file `target` unless it is empty or `kind` written by
    /// schedule-sim.
    private static func checkReplaceable(
        _ target: String, kind: OutputKind, refuse: (String) -> SimulationIOError
    ) throws(SimulationIOError) {
        let read: (bytes: Data, whole: Bool)
        do { read = try InputFile.prefix(target, maxBytes: kind.bytesRead) } catch {
            throw refuse("exists and cannot be read to see whether schedule-sim wrote it (\(error.problem))")
        }
        guard kind.recognizes(read.bytes, whole: read.whole) else {
            throw refuse(
                "exists and is not a \(kind.rawValue) schedule-sim wrote; it replaces only its own files: "
                    + "give another path, or remove the file first")
        }
    }

    /// Refuses two outputs that name the same file, an output that names one of `inputs`, and an
    /// output in one of `ownedFolders` (a journal store's directory: its files are the store's).
    public static func checkDistinct(
        _ outputs: [OutputFile], inputs: [String], ownedFolders: [String] = []
    ) throws(SimulationIOError) {
        for folder in ownedFolders {
            let owned = identity(folder)
            if let output = outputs.first(where: { identity(directory(of: $0.target)) == owned }) {
                throw SimulationIOError(
                    path: output.path, problem: "is in \(folder), the journal store's directory; give a file elsewhere")
            }
        }
        var seen: [String: String] = [:]
        for output in outputs {
            let key = identity(output.target)
            if let other = seen[key] {
                throw SimulationIOError(path: output.path, problem: "is also the output \(other); give another file")
            }
            seen[key] = output.path
        }
        for input in inputs {
            if let other = seen[identity(input)] {
                throw SimulationIOError(path: other, problem: "is the input \(input); it would be overwritten")
            }
        }
    }

    /// A key equal for two paths of one existing file (device and inode); for a file not yet
    /// there, its folder's key and its name, so that two spellings of one folder (a link to it)
    /// still give one key.
    static func identity(_ path: String) -> String {
        var info = stat()
        if stat(path, &info) == 0 { return "inode \(info.st_dev):\(info.st_ino)" }
        let folder = directory(of: path)
        if stat(folder, &info) == 0 {
            return "inode \(info.st_dev):\(info.st_ino)/" + URL(fileURLWithPath: path).lastPathComponent
        }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a fifo"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Writes `data` to the target through a partial file.
    public func write(_ data: Data) throws(SimulationIOError) {
        let partial = try create()
        let ok = data.withUnsafeBytes { bytes in partial.write(bytes) }
        guard ok else {
            partial.discard()
            throw SimulationIOError(path: path, problem: "cannot write: \(String(cString: strerror(errno)))")
        }
        try commit(partial)
    }

    /// A new partial file beside the target, registered for removal on an interrupt.
    func create() throws(SimulationIOError) -> PartialFile {
        // Check again: the run may have taken a while.
        _ = try OutputFile.check(path, kind: kind)
        for attempt in 0..<100 {
            let name = "\(target).\(getpid()).\(attempt).partial"
            let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                PartialFiles.shared.register(name)
                return PartialFile(path: name, descriptor: fd)
            }
            if errno != EEXIST { break }
        }
        throw SimulationIOError(
            path: path, problem: "cannot create a temporary file beside it: \(String(cString: strerror(errno)))")
    }

    /// Flushes `partial` to disk and renames it over the target, which must still be a regular
    /// file or nothing. A replaced file's permissions are kept.
    func commit(_ partial: PartialFile) throws(SimulationIOError) {
        do throws(SimulationIOError) {
            let checked = try OutputFile.check(path, kind: kind)
            var info = stat()
            if lstat(checked.target, &info) == 0 { _ = fchmod(partial.descriptor, info.st_mode & 0o7777) }
            guard fsync(partial.descriptor) == 0 else {
                throw SimulationIOError(path: path, problem: "cannot flush: \(String(cString: strerror(errno)))")
            }
            guard rename(partial.path, checked.target) == 0 else {
                throw SimulationIOError(
                    path: path, problem: "cannot rename into place: \(String(cString: strerror(errno)))")
            }
        } catch {
            partial.discard()
            throw error
        }
        close(partial.descriptor)
        PartialFiles.shared.unregister(partial.path)
        let folder = open(OutputFile.directory(of: target), O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}

/// An open, registered partial file (see ``OutputFile/create()``).
struct PartialFile {
    let path: String
    let descriptor: Int32

    /// Writes all of `bytes`; false on an error (see `errno`).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = systemWrite(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }

    /// Closes and removes the partial file.
    func discard() {
        close(descriptor)
        unlink(path)
        PartialFiles.shared.unregister(path)
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
