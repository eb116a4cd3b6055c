#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Logging
import Synchronization

/// A log that keeps every message it is given, for tests of what the store logs through the
/// application's `Logger`.
final class CapturedLogs: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    /// Every message so far, in the order logged.
    var all: [Entry] { entries.withLock { $0 } }

    /// A logger that writes here, at `level` and above.
    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(logs: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append(
                Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
#endif
