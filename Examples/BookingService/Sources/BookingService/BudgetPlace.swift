import NIOCore

/// A connection's place in a ``ConnectionBudget``, as a handler keeps it (``ConnectionShedding``,
/// ``UpgradeWatch``): taken once its channel is active, given back once.
struct BudgetPlace {
    let budget: ConnectionBudget
    private var ticket: ConnectionBudget.Ticket?

    init(_ budget: ConnectionBudget) {
        self.budget = budget
    }

    /// Counts the connection in, once its channel is active: call it from `handlerAdded` (a
    /// handler may be added to a connection already active) and from `channelActive`.
    mutating func take(_ channel: any Channel) {
        if ticket == nil, channel.isActive { ticket = budget.opened(channel) }
    }

    func requestRead() {
        if let ticket { budget.requestRead(ticket) }
    }

    func requestAnswered() {
        if let ticket { budget.requestAnswered(ticket) }
    }

    /// The channel turned unwritable (its client takes none of the answers) or writable again.
    func writabilityChanged(_ channel: any Channel) {
        if let ticket { budget.stalled(ticket, !channel.isWritable) }
    }

    mutating func giveBack() {
        if let ticket { budget.closed(ticket) }
        ticket = nil
    }
}
