/// A reservation's request id whose booking has moved since (``Ledger/reschedule(_:at:)``), as a
/// ``Snapshot`` keeps it. A repeat of a reservation answers with its booking wherever the booking
/// is now, and the request is compared with the slot it asked for; a snapshot's booking holds
/// only its current slot, so the slot asked for travels beside it, and a repeat after a restore
/// answers as it did before.
public struct MovedRequest: Hashable, Sendable, RememberedRequestID {
    public var user: UserID
    public var requestID: RequestID
    public var booking: BookingID
    /// The slot the reservation asked for; the booking holds another one now.
    public var slot: Slot

    public init(user: UserID, requestID: RequestID, booking: BookingID, slot: Slot) {
        self.user = user
        self.requestID = requestID
        self.booking = booking
        self.slot = slot
    }
}

extension Snapshot {
    /// Keeps, of the reservation request ids a book remembers (`remembered`, each with the slot
    /// it asked for), those whose booking in ``bookings`` holds another slot now, in snapshot
    /// order.
    /// - Complexity: O(*b* + *r* log *r*) for *b* bookings and *r* request ids.
    mutating func keepMovedRequests(of remembered: [MovedRequest]) {
        var slotOf: [BookingID: Slot] = [:]
        slotOf.reserveCapacity(bookings.count)
        for booking in bookings where booking.requestID != nil { slotOf[booking.id] = booking.slot }
        movedRequests = remembered.filter { memo in slotOf[memo.booking].map { $0 != memo.slot } ?? false }
            .sorted(by: MovedRequest.inOrder)
    }
}

extension UserBook {
    /// Every reservation request id this book remembers, each with the slot it asked for, in no
    /// particular order (``Snapshot/keepMovedRequests(of:)`` sorts those it keeps).
    /// - Complexity: O(*r*) in the remembered ids.
    func rememberedRequests(catalog: Catalog) -> [MovedRequest] {
        requests.map { key, memo in
            MovedRequest(user: key.user, requestID: key.id, booking: memo.booking, slot: catalog.slot(memo.ref))
        }
    }

    /// Puts back the slot a snapshot's moved request asked for, after its booking was restored
    /// (which remembered the booking's current slot); `index` names it in an error.
    mutating func remember(_ memo: MovedRequest, index: Int, catalog: Catalog) throws(ReplayError) {
        func fail(_ problem: String) -> ReplayError {
            let id = IdentifierRule.shortened(memo.requestID.rawValue).debugDescription
            return ReplayError(index: index, problem: "moved request \(id): \(problem)")
        }
        let ref: SlotRef
        do { ref = try catalog.resolve(memo.slot, includingRetired: true) } catch {
            throw fail(error.description)
        }
        let key = RequestKey(user: memo.user, id: memo.requestID)
        guard let made = requests[key], made.booking == memo.booking else {
            throw fail("booking \(memo.booking) of user \(memo.user) was not made with this request id")
        }
        requests[key] = RememberedRequest(booking: made.booking, ref: ref, reminder: made.reminder)
    }
}
