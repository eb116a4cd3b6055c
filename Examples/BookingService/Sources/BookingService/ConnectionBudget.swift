import NIOCore
import Synchronization

/// At most `capacity` open connections: when one more opens, the connection evictable the
/// longest is closed to make room. Evictable: idle (no request read and not yet answered), or
/// stalled (its client takes none of the answers: the channel is unwritable).
///
/// Without it, a client that opens connections faster than the idle timeout closes them uses up
/// the process's file descriptors: `accept` fails, and every other client waits in the kernel's
/// backlog until the first of those connections times out. With it, such a flood only ever
/// closes its own silent connections (they are idle and the oldest), while a connection whose
/// request is being read or answered (and whose client reads the answers) is never closed to
/// make room; when every other connection is busy, the new one is closed instead. `capacity` stays below the descriptor limit
/// (``DescriptorLimit/connectionCapacity(descriptorLimit:)``), so `accept` keeps working.
///
/// A client that pipelines requests and never reads the answers keeps its connections busy
/// until ``WriteDeadline`` closes them; were they not evictable, `capacity` of them would have
/// every new connection closed at once until then, and again each time the client opens more.
/// A stalled connection is one its client has stopped using, like an idle one, and makes room
/// the same way, in the order it stalled: an honest client's connection stalled for a moment
/// (a large answer, a slow network) is chosen only after every connection evictable before it.
///
/// The evictable connections are kept in the order they became evictable (a doubly linked list
/// through the table of open connections), so opening, closing, and turning busy, idle, stalled
/// or writable are O(1).
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
    /// the longest evictable other connection, or this one when all others are busy.
    ///
    /// The close is scheduled on the evicted channel's event loop, never run within this call:
    /// a channel closed here, on its own loop, would call its handlers' `channelInactive` while
    /// the handler counting the new connection in is still inside its own call (this one's own
    /// channel, when every other connection is busy: an exclusivity violation, and the process
    /// stopped).
    func opened(_ channel: any Channel) -> Ticket {
        let (ticket, evicted) = state.withLock { state in
            let ticket = state.add(channel)
            return (ticket, state.open.count > capacity ? state.evict(sparing: ticket) : nil)
        }
        if let evicted { evicted.eventLoop.execute { evicted.close(promise: nil) } }
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

    /// The connection's channel turned unwritable (`stalled`) or writable again.
    func stalled(_ ticket: Ticket, _ stalled: Bool) {
        state.withLock { $0.stalled(ticket, stalled) }
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
            /// Whether the channel is unwritable: the client takes none of the answers.
            var stalled = false
            /// Neighbours in the evictable order (older, newer), when evictable.
            var older: Ticket?
            var newer: Ticket?

            var evictable: Bool { unanswered == 0 || stalled }
        }

        var open: [Ticket: Connection] = [:]
        private var nextTicket: Ticket = 0
        /// The evictable order's ends.
        private var oldestEvictable: Ticket?
        private var newestEvictable: Ticket?

        mutating func add(_ channel: any Channel) -> Ticket {
            let ticket = nextTicket
            nextTicket += 1
            open[ticket] = Connection(channel: channel)
            appendEvictable(ticket)
            return ticket
        }

        /// Removes and returns the connection to close: the oldest evictable one but `spared`,
        /// else `spared` itself.
        mutating func evict(sparing spared: Ticket) -> (any Channel)? {
            // `spared` is the newest evictable connection: when it is also the oldest, it is the
            // only one.
            let victim = oldestEvictable.flatMap { $0 == spared ? nil : $0 } ?? spared
            let channel = open[victim]?.channel
            close(victim)
            return channel
        }

        mutating func requestRead(_ ticket: Ticket) {
            update(ticket) { $0.unanswered += 1 }
        }

        mutating func requestAnswered(_ ticket: Ticket) {
            update(ticket) { $0.unanswered = max(0, $0.unanswered - 1) }
        }

        mutating func stalled(_ ticket: Ticket, _ stalled: Bool) {
            update(ticket) { $0.stalled = stalled }
        }

        mutating func close(_ ticket: Ticket) {
            guard let connection = open[ticket] else { return }
            if connection.evictable { removeEvictable(ticket) }
            open[ticket] = nil
        }

        /// Applies `change` to an open connection, and moves it into the evictable order (as its
        /// newest) or out of it when that changes whether it is evictable.
        private mutating func update(_ ticket: Ticket, _ change: (inout Connection) -> Void) {
            guard var connection = open[ticket] else { return }
            let wasEvictable = connection.evictable
            change(&connection)
            open[ticket] = connection
            switch (wasEvictable, connection.evictable) {
            case (true, false): removeEvictable(ticket)
            case (false, true): appendEvictable(ticket)
            default: break
            }
        }

        private mutating func appendEvictable(_ ticket: Ticket) {
            open[ticket]?.older = newestEvictable
            open[ticket]?.newer = nil
            if let newestEvictable { open[newestEvictable]?.newer = ticket } else { oldestEvictable = ticket }
            newestEvictable = ticket
        }

        private mutating func removeEvictable(_ ticket: Ticket) {
            guard let connection = open[ticket] else { return }
            if let older = connection.older {
                open[older]?.newer = connection.newer
            } else {
                oldestEvictable = connection.newer
            }
            if let newer = connection.newer {
                open[newer]?.older = connection.older
            } else {
                newestEvictable = connection.older
            }
            open[ticket]?.older = nil
            open[ticket]?.newer = nil
        }
    }
}
