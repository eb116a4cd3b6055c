import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The partial files being written now (``OutputFile``), so that an interrupted run can remove
/// them: ``removeOnInterrupt()`` does so on SIGINT and SIGTERM, then exits 130 or 143.
public final class PartialFiles: Sendable {
    public static let shared = PartialFiles()

    private let paths = Mutex<[String]>([])

    func register(_ path: String) { paths.withLock { $0.append(path) } }

    func unregister(_ path: String) {
        paths.withLock { list in list.removeAll { $0 == path } }
    }

    /// The partial files now registered, in the order they were created.
    public var current: [String] { paths.withLock { $0 } }

    /// Removes every registered partial file (or those `matching`).
    public func removeAll(matching: (String) -> Bool = { _ in true }) {
        let list = paths.withLock { list in
            defer { list.removeAll(where: matching) }
            return list.filter(matching)
        }
        for path in list { unlink(path) }
    }

    /// On SIGINT or SIGTERM: removes the partial files and exits with 128 + the signal number.
    public func removeOnInterrupt() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                removeAll()
                exit(128 + signalNumber)
            }
            source.resume()
            // Kept for the life of the process: a released source stops delivering the signal.
            _ = Unmanaged.passRetained(source as AnyObject)
        }
    }
}
