/// One of the four lists of ``UserBookings``, by the name OCPI gives its state.
public enum BookingList: String, CaseIterable, Hashable, Codable, Sendable {
    case upcoming, fulfilled, noShow, cancelled
}

/// Which part of a list to read: at most ``limit`` bookings from position ``offset`` (0 is the
/// first). Checked when made, so no store is asked for an unbounded page.
public struct PageRequest: Hashable, Sendable {
    /// The longest page a store reads at once.
    public static let maximumLimit = 500

    public let offset: Int
    public let limit: Int

    /// - Throws: ``InvalidValue`` for a negative offset, or a limit outside
    ///   1...``maximumLimit``.
    public init(offset: Int = 0, limit: Int = 50) throws(InvalidValue) {
        guard offset >= 0 else {
            throw InvalidValue(
                field: "page.offset", value: String(offset), expected: "0 or more", turkish: "0 veya daha fazla")
        }
        guard (1...Self.maximumLimit).contains(limit) else {
            throw InvalidValue(
                field: "page.limit", value: String(limit), expected: "1...\(Self.maximumLimit)",
                turkish: "1...\(Self.maximumLimit)")
        }
        self.offset = offset
        self.limit = limit
    }
}

/// One page of a user's list, in the list's order (``UserBookings``), and whether more follow.
public struct BookingPage: Hashable, Codable, Sendable {
    public var bookings: [Booking]
    public var hasMore: Bool

    public init(bookings: [Booking], hasMore: Bool) {
        self.bookings = bookings
        self.hasMore = hasMore
    }
}

extension UserBookings {
    /// One of the four lists.
    public subscript(list: BookingList) -> [Booking] {
        switch list {
        case .upcoming: upcoming
        case .fulfilled: fulfilled
        case .noShow: noShow
        case .cancelled: cancelled
        }
    }

    /// The part of `list` that `request` names.
    public func page(_ list: BookingList, _ request: PageRequest) -> BookingPage {
        let all = self[list]
        let start = min(request.offset, all.count)
        let end = start + min(request.limit, all.count - start)
        return BookingPage(bookings: Array(all[start..<end]), hasMore: end < all.count)
    }
}

extension BookingService {
    /// One page of one of the user's lists at `now`, cut from ``bookings(of:at:)``: the in-memory
    /// stores hold a user's bookings in memory already. The PostgreSQL store reads only the page
    /// (and one more row, for ``BookingPage/hasMore``).
    ///
    /// - Complexity: O(*k* log *k*) in the user's bookings held.
    public func bookings(of user: UserID, in list: BookingList, at now: Instant, page: PageRequest) async throws
        -> BookingPage
    {
        try await bookings(of: user, at: now).page(list, page)
    }
}
