#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A real directory, through the C library: `open`, `write`, `fdatasync`, `fsync`, `rename`,
/// and `flock` on a `LOCK` file.
///
/// Journals are preallocated: when an append would pass the file's end, the file is first
/// extended with written zeros by `preallocation` bytes, so that the `fdatasync` after most
/// appends writes data only and not the file's size as well (as PostgreSQL's WAL segments are
/// zero-filled ahead). Recovery reads the zeros after the last record as unused space.
///
/// `@unchecked Sendable`: the lock descriptor is set once by `lock()` before the store shares
/// the object, and read again only by `unlock()` at close.
public final class PosixDirectory: JournalFiles, @unchecked Sendable {
    public let path: String
    /// Bytes of zeros a journal grows by when an append reaches its end (0: none).
    public let preallocation: Int
    /// The largest ``preallocation`` (64 MiB, the default checkpoint threshold's size): a larger
    /// one is capped to it, as a negative one is raised to 0. Before, `Int.max` overflowed the
    /// first append's `position + count + preallocation`.
    public static let maximumPreallocation = 64 << 20
    private var lockDescriptor: Int32 = -1

    /// Uses (and creates, with any missing parents) the directory at `path`. Each folder it
    /// creates is made durable in its parent (`fsync` of the parent), so that a power loss cannot
    /// take the store's directory, and the bookings acknowledged in it, away.
    public init(path: String, preallocation: Int = 4 << 20) throws(JournalError) {
        self.path = path
        self.preallocation = min(max(0, preallocation), Self.maximumPreallocation)
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            let parent = prefix.isEmpty ? "." : prefix
            prefix += component
            if mkdir(prefix, 0o755) == 0 {
                try Self.syncFolder(parent)
            } else if errno != EEXIST {
                throw .posix("cannot create the directory", file: prefix)
            }
            prefix += "/"
        }
    }

    /// `fsync` of the folder at `path`: its entries (files created, renamed or removed in it)
    /// are durable when it returns.
    static func syncFolder(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .posix("cannot open the directory", file: path) }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw .posix("fsync of the directory failed", file: path) }
    }

    func full(_ name: String) -> String { path + "/" + name }

    /// Journals are preallocated; snapshots, whose last record must end the file, are not.
    func preallocation(for name: String) -> Int {
        FileNames.journalGeneration(name) == nil ? 0 : preallocation
    }

    public func lock() throws(JournalError) {
        let name = full("LOCK")
        let fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .posix("cannot open the lock file", file: name) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            Glibc.close(fd)
            if code == EWOULDBLOCK {
                throw JournalError(
                    .locked, file: name,
                    message: "another store (this or another process) has the journal open; one writer at a time")
            }
            throw JournalError(.io, file: name, message: "flock: \(String(cString: strerror(code)))")
        }
        lockDescriptor = fd
    }

    /// Unlocks before closing: a child process spawned by another thread between its `fork` and
    /// its `exec` holds a copy of the descriptor, and closing ours alone would leave the lock held
    /// until that child execs. `LOCK_UN` releases it for every copy.
    public func unlock() {
        guard lockDescriptor >= 0 else { return }
        flock(lockDescriptor, LOCK_UN)
        Glibc.close(lockDescriptor)
        lockDescriptor = -1
    }

    public func list() throws(JournalError) -> [String] {
        guard let dir = opendir(path) else { throw .posix("cannot list", file: path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The bytes of `name`, which must be a regular file (not a link): a fifo would block the
    /// store's opening and `/dev/zero` never end, and the store could not append to either.
    public func read(_ name: String) throws(JournalError) -> [UInt8] {
        let file = full(name)
        // O_NONBLOCK: opening a fifo would wait for a writer. O_NOFOLLOW, as appending opens it.
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ELOOP {
                throw JournalError(
                    .corrupt, file: file, message: "a symbolic link; the journal's files are regular files")
            }
            throw .posix("cannot open", file: file)
        }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .posix("cannot examine", file: file) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw JournalError(
                .corrupt, file: file, message: "not a regular file; the journal's files are regular files")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .posix("cannot read", file: file)
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    public func create(_ name: String) throws(JournalError) -> any JournalFile {
        let file = full(name)
        // O_NOFOLLOW: a link planted at the next generation's name must not redirect the write.
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .posix("cannot create", file: file) }
        return PosixFile(fd: fd, path: file, size: 0, preallocation: preallocation(for: name))
    }

    public func openForAppend(_ name: String, truncatingTo size: Int) throws(JournalError) -> any JournalFile {
        let file = full(name)
        let fd = open(file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .posix("cannot open", file: file) }
        guard ftruncate(fd, off_t(size)) == 0, lseek(fd, off_t(size), SEEK_SET) >= 0 else {
            let error = JournalError.posix("cannot truncate to \(size) bytes", file: file)
            Glibc.close(fd)
            throw error
        }
        return PosixFile(fd: fd, path: file, size: size, preallocation: preallocation(for: name))
    }

    public func rename(_ from: String, to: String) throws(JournalError) {
        guard Glibc.rename(full(from), full(to)) == 0 else { throw .posix("cannot rename to \(to)", file: full(from)) }
    }

    public func remove(_ name: String) throws(JournalError) {
        guard unlink(full(name)) == 0 || errno == ENOENT else { throw .posix("cannot remove", file: full(name)) }
    }

    public func syncDirectory() throws(JournalError) { try Self.syncFolder(path) }
}

/// An open file descriptor, written with `write(2)` until all bytes are out, and extended with
/// zeros ahead of its appends when `preallocation` is not 0.
///
/// `@unchecked Sendable`: the store writes it from one thread at a time (in buffer order), syncs
/// it (through other descriptors too) from several, and closes it only when none of them is active; `position` and `allocated` change only
/// in `write`.
final class PosixFile: JournalFile, @unchecked Sendable {
    let fd: Int32
    let path: String
    let preallocation: Int
    /// Where the next append goes, and the file's size (zeros from `position` on).
    private var position: Int
    private var allocated: Int

    init(fd: Int32, path: String, size: Int, preallocation: Int) {
        self.fd = fd
        self.path = path
        self.preallocation = preallocation
        self.position = size
        self.allocated = size
    }

    func write(_ bytes: [UInt8]) throws(JournalError) {
        if preallocation > 0, position + bytes.count > allocated {
            try extend(to: position + bytes.count + preallocation)
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { all in
                let rest = UnsafeRawBufferPointer(rebasing: all[done...])
                return Glibc.write(fd, rest.baseAddress, rest.count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .posix("write failed", file: path)
            }
            done += n
        }
        position += bytes.count
    }

    /// Writes zeros from the allocated end to `end` (the next sync makes them and the new size
    /// durable together with the append that needed them).
    private func extend(to end: Int) throws(JournalError) {
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var at = allocated
        while at < end {
            let n = zeros.withUnsafeBytes { z in pwrite(fd, z.baseAddress, min(z.count, end - at), off_t(at)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .posix("cannot preallocate to \(end) bytes", file: path)
            }
            at += n
        }
        allocated = end
    }

    func sync(metadata: Bool) throws(JournalError) {
        let result = metadata ? fsync(fd) : fdatasync(fd)
        guard result == 0 else { throw .posix(metadata ? "fsync failed" : "fdatasync failed", file: path) }
    }

    func close() { Glibc.close(fd) }

    /// Another descriptor of the same file, for syncing only.
    func syncHandle() throws(JournalError) -> any JournalFile {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .posix("cannot open for syncing", file: path) }
        return PosixFile(fd: fd, path: path, size: 0, preallocation: 0)
    }
}
