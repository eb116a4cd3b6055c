#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Testing

#if canImport(Glibc)
import Glibc

/// `TestDatabase.shell` (no database needed): its `sh` inherits no descriptor of the test process
/// but stdin, stdout and stderr.
@Suite struct ShellTests {
    /// A pipe made without `O_CLOEXEC`, as Foundation's `Pipe` makes them: its write end must not
    /// reach the `sh`, or a server that a command starts would hold it and nobody would ever read
    /// the pipe's end of file.
    @Test func theShellInheritsNoOtherDescriptor() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let status = try await TestDatabase.shell("test ! -e /proc/$$/fd/\(ends[1])")
        #expect(status == 0, "the shell holds descriptor \(ends[1]), the write end of a pipe of the test process")
    }
}
#endif
#endif
