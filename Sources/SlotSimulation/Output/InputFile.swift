import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading an input file (a record, a history, a catalog, a CSV, a secret) only when it is a
/// regular file, in bounded memory: a fifo would block its reader forever and `/dev/zero` never
/// end, so anything else is refused by name before a byte is read (as ``Scenario/load(path:)``
/// refuses it for a scenario).
public enum InputFile {
    /// A descriptor of `path` open for reading, when it is a regular file (a symbolic link is
    /// followed); the caller closes it.
    public static func openRegular(_ path: String) throws(SimulationIOError) -> Int32 {
        // Without O_NONBLOCK, opening a fifo waits for a writer.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            throw SimulationIOError(path: path, problem: "cannot read: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let kind = OutputFile.kind(info.st_mode)
            close(fd)
            throw SimulationIOError(path: path, problem: "cannot read \(kind): give a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// The bytes of the regular file `path`, refused when there are more than `maxBytes`.
    /// - Complexity: O(n) in the file's bytes, at most `maxBytes` + 64 KiB of memory.
    public static func contents(_ path: String, maxBytes: Int) throws(SimulationIOError) -> Data {
        let fd = try openRegular(path)
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SimulationIOError(path: path, problem: "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return data }
            data.append(contentsOf: chunk[0..<n])
            guard data.count <= maxBytes else {
                throw SimulationIOError(path: path, problem: "more than \(maxBytes) bytes")
            }
        }
    }
}
