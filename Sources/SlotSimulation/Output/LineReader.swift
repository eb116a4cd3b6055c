import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file line by line in 1 MiB pieces, so a file of any size is read in bounded memory
/// (a regular file only: ``InputFile``).
enum LineReader {
    /// The number of newlines in the file (0 if it cannot be read): a size to reserve.
    static func countLines(path: String) -> Int {
        guard let fd = try? InputFile.openRegular(path) else { return 0 }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var count = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return count }
            for i in 0..<n where chunk[i] == 10 { count += 1 }
        }
    }

    /// Calls `body` with each non-empty line (without its newline), its 1-based number, and
    /// whether it is a last line with no newline after it (cut short, perhaps, by a kill).
    /// - Complexity: O(n) in the file's bytes; memory O(longest line + 1 MiB).
    static func forEachLine(
        path: String, _ body: (Data, Int, Bool) throws(SimulationIOError) -> Void
    ) throws(SimulationIOError) {
        let fd = try InputFile.openRegular(path)
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        var number = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SimulationIOError(path: path, problem: "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            var start = 0
            for i in 0..<n where chunk[i] == 10 {
                number += 1
                if pending.isEmpty {
                    if i > start { try body(Data(chunk[start..<i]), number, false) }
                } else {
                    pending.append(contentsOf: chunk[start..<i])
                    try body(Data(pending), number, false)
                    pending.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            pending.append(contentsOf: chunk[start..<n])
        }
        if !pending.isEmpty { try body(Data(pending), number + 1, true) }
    }
}
