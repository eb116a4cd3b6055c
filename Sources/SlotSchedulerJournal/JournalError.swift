#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the journal store could not open, or stopped: what, in which file, at which byte offset.
public struct JournalError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Another store holds the directory's lock.
        case locked
        /// A record that is not the torn tail failed its checksum or could not be decoded, or a
        /// file is missing from the sequence. Nothing was truncated or changed.
        case corrupt
        /// The recorded events do not replay onto the rules (a different catalog?).
        case replay
        /// A system call failed. After a failed write or sync the store refuses every command:
        /// it cannot know what reached the disk.
        case io
        /// The store was closed.
        case closed
    }

    public var kind: Kind
    /// The file concerned (a full path).
    public var file: String
    /// The byte offset in `file`, when the problem is at one.
    public var offset: Int?
    public var message: String

    public init(_ kind: Kind, file: String, offset: Int? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.offset = offset
        self.message = message
    }

    public var description: String {
        "journal \(kind.rawValue): \(file)\(offset.map { " at byte offset \($0)" } ?? ""): \(message)"
    }

    static func posix(_ what: String, file: String) -> JournalError {
        JournalError(.io, file: file, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
