/// A reschedule request id a ledger or scheduler remembers, as a ``Snapshot`` keeps it: a repeat
/// of the reschedule returns the same booking after a restore too.
public struct RememberedReschedule: Hashable, Sendable, RememberedRequestID {
    public var user: UserID
    public var requestID: RequestID
    public var booking: BookingID
    /// The slot the booking was moved to.
    public var to: Slot

    public init(user: UserID, requestID: RequestID, booking: BookingID, to: Slot) {
        self.user = user
        self.requestID = requestID
        self.booking = booking
        self.to = to
    }
}

/// A request id a snapshot lists: ``RememberedReschedule``, ``MovedRequest``.
protocol RememberedRequestID {
    var user: UserID { get }
    var requestID: RequestID { get }
}

extension RememberedRequestID {
    /// By user, then request id byte by byte: the order snapshots list them in.
    static func inOrder(_ a: Self, _ b: Self) -> Bool {
        if a.user != b.user { return a.user.rawValue < b.user.rawValue }
        return a.requestID.rawValue.utf8.lexicographicallyPrecedes(b.requestID.rawValue.utf8)
    }
}

extension Snapshot {
    /// A snapshot that also remembers reschedule request ids.
    public init(bookings: [Booking], overrides: [AvailabilityChange], rescheduleRequests: [RememberedReschedule]) {
        self.init(bookings: bookings, overrides: overrides)
        self.rescheduleRequests = rescheduleRequests
    }
}

extension UserBook {
    /// The reschedule request ids this book remembers, in snapshot order.
    /// - Complexity: O(*r* log *r*) in the remembered ids.
    func rememberedReschedules(catalog: Catalog) -> [RememberedReschedule] {
        reschedules.map { key, memo in
            RememberedReschedule(user: key.user, requestID: key.id, booking: memo.booking, to: catalog.slot(memo.to))
        }.sorted(by: RememberedReschedule.inOrder)
    }

    /// Remembers a snapshot's reschedule request id; `index` names it in an error.
    mutating func remember(_ memo: RememberedReschedule, index: Int, catalog: Catalog) throws(ReplayError) {
        let to: SlotRef
        do { to = try catalog.resolve(memo.to, includingRetired: true) } catch {
            throw ReplayError(index: index, problem: "reschedule request \(memo.requestID): \(error.description)")
        }
        if let expected = IdentifierRule.problem(in: memo.requestID.rawValue) {
            throw ReplayError(
                index: index,
                problem:
                    "request id \(IdentifierRule.shortened(memo.requestID.rawValue).debugDescription): expected \(expected)"
            )
        }
        reschedules[RequestKey(user: memo.user, id: memo.requestID)] = RememberedMove(booking: memo.booking, to: to)
    }
}
