import Testing

/// Who may use the test database at once. The fault test kills every connection to the database
/// and restarts the server, so it runs alone (`.exclusiveDatabase`); the other PostgreSQL suites
/// share the database with each other (`.sharedDatabase`). Swift Testing runs suites in parallel,
/// and `.serialized` only orders the tests inside one suite.
actor DatabaseGate {
    static let shared = DatabaseGate()

    private var readers = 0
    private var writer = false
    private var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    func acquire(exclusive: Bool) async {
        let free = exclusive ? !writer && readers == 0 && waiting.isEmpty : !writer && waiting.isEmpty
        if free {
            if exclusive { writer = true } else { readers += 1 }
            return
        }
        await withCheckedContinuation { waiting.append((exclusive, $0)) }
    }

    func release(exclusive: Bool) {
        if exclusive { writer = false } else { readers -= 1 }
        // First come, first served: the next writer alone, or every reader ahead of the next writer.
        while let next = waiting.first, !writer {
            if next.exclusive {
                guard readers == 0 else { return }
                writer = true
            } else {
                readers += 1
            }
            waiting.removeFirst()
            next.continuation.resume()
        }
    }
}

/// Runs each test of a suite (or a test) while holding the ``DatabaseGate``.
struct DatabaseAccess: SuiteTrait, TestTrait, TestScoping {
    var exclusive: Bool
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if test.isSuite {
            try await function()
            return
        }
        await DatabaseGate.shared.acquire(exclusive: exclusive)
        do {
            try await function()
        } catch {
            await DatabaseGate.shared.release(exclusive: exclusive)
            throw error
        }
        await DatabaseGate.shared.release(exclusive: exclusive)
    }
}

extension Trait where Self == DatabaseAccess {
    /// Shares the test database with the other suites that share it.
    static var sharedDatabase: Self { DatabaseAccess(exclusive: false) }
    /// Has the test database to itself (connections killed, server restarted).
    static var exclusiveDatabase: Self { DatabaseAccess(exclusive: true) }
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a PostgreSQL test. Swift Testing counts the wait for the ``DatabaseGate``
    /// in it, and the exclusive fault test holds the gate for minutes on a loaded 2-core machine
    /// (236 s once, with 1-minute limits then failing tests that never got the database; 200 s
    /// in a CI run whose other database tests took 186 s), so the limit covers that wait as well
    /// as the test's own work with room to spare: still a bound, inside CI's 30 minutes.
    static var databaseTestLimit: Self { .timeLimit(.minutes(15)) }
}
