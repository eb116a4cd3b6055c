import NIOCore
import Synchronization

/// At most `capacity` open connections: when one more opens, the connection idle the longest
/// (no request read and not yet answered) is closed to make room.
///
/// Without it, a client that opens connections faster than the idle timeout closes them uses up
/// the process's file descriptors: `accept` fails, and every other client waits in the kernel's
/// backlog until the first of those connections times out. With it, such a flood only ever
/// closes its own silent connections (they are idle and the oldest), while a connection whose
/// request is being read or answered is never closed to make room; when every other connection
/// is busy, the new one is closed instead. `capacity` stays below the descriptor limit
/// (``DescriptorLimit/connectionCapacity(descriptorLimit:)``), so `accept` keeps working.
///
/// The idle connections are kept in the order they became idle (a doubly linked list through
/// the table of open connections), so opening, closing, and turning busy or idle are O(1).
final class ConnectionBudget: Sendable {
    let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State())
    }

    /// A connection's number in this budget.
    typealias Ticket = Int

    /// Counts a new connection in, and closes the one that makes room if the budget is full:
    /// the longest idle other connection, or this one when all others are busy.
    func opened(_ channel: any Channel) -> Ticket {
        let (ticket, evicted) = state.withLock { state in
            let ticket = state.add(channel)
            return (ticket, state.open.count > capacity ? state.evict(sparing: ticket) : nil)
        }
        evicted?.close(promise: nil)
        return ticket
    }

    /// A request was read on the connection: it is busy until every request read is answered.
    func requestRead(_ ticket: Ticket) {
        state.withLock { $0.requestRead(ticket) }
    }

    /// A response was written to its end.
    func requestAnswered(_ ticket: Ticket) {
        state.withLock { $0.requestAnswered(ticket) }
    }

    func closed(_ ticket: Ticket) {
        state.withLock { $0.close(ticket) }
    }

    /// Open connections, busy or idle.
    var openCount: Int { state.withLock { $0.open.count } }

    struct State {
        struct Connection {
            let channel: any Channel
            /// Requests read and not yet answered; 0 when idle.
            var unanswered = 0
            /// Neighbours in the idle order (older, newer), when idle.
            var older: Ticket?
            var newer: Ticket?
        }

        var open: [Ticket: Connection] = [:]
        private var nextTicket: Ticket = 0
        /// The idle order's ends.
        private var oldestIdle: Ticket?
        private var newestIdle: Ticket?

        mutating func add(_ channel: any Channel) -> Ticket {
            let ticket = nextTicket
            nextTicket += 1
            open[ticket] = Connection(channel: channel)
            appendIdle(ticket)
            return ticket
        }

        /// Removes and returns the connection to close: the oldest idle one but `spared`, else
        /// `spared` itself.
        mutating func evict(sparing spared: Ticket) -> (any Channel)? {
            // `spared` is the newest idle connection: when it is also the oldest, it is the only one.
            let victim = oldestIdle.flatMap { $0 == spared ? nil : $0 } ?? spared
            let channel = open[victim]?.channel
            close(victim)
            return channel
        }

        mutating func requestRead(_ ticket: Ticket) {
            guard let unanswered = open[ticket]?.unanswered else { return }
            if unanswered == 0 { removeIdle(ticket) }
            open[ticket]?.unanswered = unanswered + 1
        }

        mutating func requestAnswered(_ ticket: Ticket) {
            guard let unanswered = open[ticket]?.unanswered, unanswered > 0 else { return }
            open[ticket]?.unanswered = unanswered - 1
            if unanswered == 1 { appendIdle(ticket) }
        }

        mutating func close(_ ticket: Ticket) {
            guard let connection = open[ticket] else { return }
            if connection.unanswered == 0 { removeIdle(ticket) }
            open[ticket] = nil
        }

        private mutating func appendIdle(_ ticket: Ticket) {
            open[ticket]?.older = newestIdle
            open[ticket]?.newer = nil
            if let newestIdle { open[newestIdle]?.newer = ticket } else { oldestIdle = ticket }
            newestIdle = ticket
        }

        private mutating func removeIdle(_ ticket: Ticket) {
            guard let connection = open[ticket] else { return }
            if let older = connection.older {
                open[older]?.newer = connection.newer
            } else {
                oldestIdle = connection.newer
            }
            if let newer = connection.newer {
                open[newer]?.older = connection.older
            } else {
                newestIdle = connection.older
            }
            open[ticket]?.older = nil
            open[ticket]?.newer = nil
        }
    }
}
