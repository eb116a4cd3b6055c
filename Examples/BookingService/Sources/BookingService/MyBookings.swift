import SlotScheduler

/// `GET /me/bookings?state=&page=&pageSize=`' answer: one page of the caller's bookings, each
/// with its `state` (the four disjoint lists of ``UserBookings``, in that order: upcoming
/// soonest first, then fulfilled, no-show and cancelled most recent first), and the paging.
struct MyBookings: Encodable {
    var bookings: [ListedBooking]
    var page: Int
    var pageSize: Int
    var totalCount: Int
    var hasMore: Bool

    /// The states, in the order the list gives them.
    enum State: String, CaseIterable, Encodable {
        case upcoming, fulfilled, noShow, cancelled
    }

    /// Page sizes taken (a larger page is a 400, like the catalog's search).
    static let pageSizes = 1...500

    /// Page `page` of `split`, only `state` when given. Any page number, however large, is an
    /// empty page, never an overflow.
    init(_ split: UserBookings, state: State?, page: Int, pageSize: Int) {
        let states = state.map { [$0] } ?? State.allCases
        let all = states.flatMap { state in Self.list(state, of: split).map { ListedBooking(booking: $0, state: state) }
        }
        let (first, overflow) = page.multipliedReportingOverflow(by: pageSize)
        let start = overflow ? all.count : min(first, all.count)
        bookings = Array(all[start..<min(start + pageSize, all.count)])
        self.page = page
        self.pageSize = pageSize
        totalCount = all.count
        hasMore = start + pageSize < all.count
    }

    private static func list(_ state: State, of split: UserBookings) -> [Booking] {
        switch state {
        case .upcoming: split.upcoming
        case .fulfilled: split.fulfilled
        case .noShow: split.noShow
        case .cancelled: split.cancelled
        }
    }
}

/// A booking as the library encodes it, plus its `state` in the caller's list.
struct ListedBooking: Encodable {
    var booking: Booking
    var state: MyBookings.State

    enum Key: String, CodingKey { case state }

    func encode(to encoder: any Encoder) throws {
        try booking.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(state, forKey: .state)
    }
}
