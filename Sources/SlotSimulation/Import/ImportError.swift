/// What an import read and wrote: printed on success and on failure alike.
public struct ImportCounts: Sendable, Equatable {
    public var rowsRead = 0
    public var stepsWritten = 0
    /// Rows skipped, by reason.
    public var skipped: [String: Int] = [:]
    /// Rows kept with a caveat, by caveat.
    public var notes: [String: Int] = [:]
    /// The first row skipped for each reason: its line and the value that was read.
    public var firstSkipped: [String: String] = [:]

    public init() {}

    mutating func skip(_ reason: String, line: Int? = nil, value: String? = nil) {
        skipped[reason, default: 0] += 1
        if firstSkipped[reason] == nil, let line {
            let shown = value.map { $0.count > 60 ? String($0.prefix(60)) + "…" : $0 }
            firstSkipped[reason] = "line \(line)" + (shown.map { ", \($0.debugDescription)" } ?? "")
        }
    }
    mutating func note(_ caveat: String) { notes[caveat, default: 0] += 1 }

    /// One line per count, reasons in alphabetical order.
    public var lines: [String] {
        ["rows read \(rowsRead), steps written \(stepsWritten)"]
            + skipped.sorted { $0.key < $1.key }.map { reason, count in
                "  skipped \(count): \(reason)" + (firstSkipped[reason].map { " (first: \($0))" } ?? "")
            }
            + notes.sorted { $0.key < $1.key }.map { "  note \($0.value): \($0.key)" }
    }
}

/// An import that could not produce a scenario: which file, what is wrong, and what was counted
/// until then.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file could not be read (exit 66).
        case unreadable
        /// The file or the options do not make a scenario (exit 65).
        case data
    }

    public var kind: Kind
    public var file: String
    public var problem: String
    public var counts: ImportCounts

    public var description: String { "\(file): \(problem)" }

    static func missingColumn(_ file: String, option: String, name: String, header: [String]) -> ImportError {
        let found = header.map { $0.debugDescription }.joined(separator: ", ")
        return ImportError(
            kind: .data, file: file,
            problem: "no column \(name.debugDescription) (\(option)); the header has \(header.count) columns: \(found)",
            counts: ImportCounts())
    }
}
