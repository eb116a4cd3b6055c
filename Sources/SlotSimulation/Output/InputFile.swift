import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading an input file (a scenario, a record, a history, a catalog, a CSV, a secret) only when
/// it is a regular file, in bounded memory: a fifo would block its reader forever and `/dev/zero`
/// never end, so anything else is refused by name before a byte is read. The kind is taken with
/// `fstat` on the descriptor opened, so nothing can replace the file between the check and the
/// read.
public enum InputFile {
    /// Why an input file was not read; ``SimulationIOError`` and ``ScenarioError`` word it.
    enum Refusal: Error, Equatable {
        /// `open` or `read` failed with this `errno`.
        case unreadable(errno: Int32)
        /// Not a regular file: "a directory", "a fifo", …
        case notRegular(kind: String)
        /// More bytes than the caller's limit.
        case tooLarge(maxBytes: Int)

        /// The problem in a few words, as ``SimulationIOError/problem`` carries it.
        var problem: String {
            switch self {
            case .unreadable(let code): "cannot read: \(String(cString: strerror(code)))"
            case .notRegular(let kind): "cannot read \(kind): give a regular file"
            case .tooLarge(let maxBytes): "more than \(maxBytes) bytes"
            }
        }
    }

    /// A descriptor of `path` open for reading, when it is a regular file (a symbolic link is
    /// followed); the caller closes it.
    public static func openRegular(_ path: String) throws(SimulationIOError) -> Int32 {
        do { return try openedRegular(path) } catch { throw SimulationIOError(path: path, problem: error.problem) }
    }

    /// The bytes of the regular file `path`, refused when there are more than `maxBytes`.
    /// - Complexity: O(n) in the file's bytes, at most `maxBytes` + 64 KiB of memory.
    public static func contents(_ path: String, maxBytes: Int) throws(SimulationIOError) -> Data {
        do { return try bytes(path, maxBytes: maxBytes) } catch {
            throw SimulationIOError(path: path, problem: error.problem)
        }
    }

    static func openedRegular(_ path: String) throws(Refusal) -> Int32 {
        // Without O_NONBLOCK, opening a fifo waits for a writer.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadable(errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let kind = OutputFile.kind(info.st_mode)
            close(fd)
            throw .notRegular(kind: kind)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    static func bytes(_ path: String, maxBytes: Int) throws(Refusal) -> Data {
        let (data, whole) = try prefix(path, maxBytes: maxBytes)
        guard whole else { throw .tooLarge(maxBytes: maxBytes) }
        return data
    }

    /// The first `maxBytes` bytes of the regular file `path` (all of it when shorter), and
    /// whether they are the whole file.
    /// - Complexity: O(`maxBytes`) time and memory, whatever the file's size.
    static func prefix(_ path: String, maxBytes: Int) throws(Refusal) -> (bytes: Data, whole: Bool) {
        let fd = try openedRegular(path)
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let wanted = min(chunk.count, maxBytes + 1 - data.count)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno: errno)
            }
            if n == 0 { return (data, true) }
            data.append(contentsOf: chunk[0..<n])
            if data.count > maxBytes { return (data.prefix(maxBytes), false) }
        }
    }
}
