import SlotScheduler

/// A small, obviously correct model of the booking rules on the scenario's dense cells.
///
/// The simulator asks it what every command *should* do and compares with what the scheduler
/// did: a disagreement is classified as the invariant it breaks (an accepted booking of a taken
/// slot is I1, past the user's limit I2, and so on). It shares no state and no decision code
/// with the scheduler; it only borrows the catalog's time-zone conversion (the starts per cell).
struct ReferenceModel {
    enum Status: UInt8 { case active, cancelled, displaced }

    /// The model's state of one cell (socket × date × hour).
    struct Cell {
        /// The slot's start in seconds since the epoch, `Int64.min` for a local time that does not exist.
        var start: Int64
        /// Model booking index + 1, or 0 when free.
        var occupant: Int32 = 0
        /// Whether a cancel or displacement ever freed it.
        var freed = false
    }

    let days: Int32
    let firstDay: Int32
    let notice: Int64
    let cutoff: Int64
    let lastDay: Int32?
    let rollingDays: Int32?
    let rules: Rules
    /// Regular open hours per flat socket.
    let regular: [UInt32]
    /// First flat socket of each station, and station of each flat socket.
    let socketBase: [Int32]
    /// Catalog index of each station id, and per station its sockets' local index by id.
    let stationIndex: [StationID: Int]
    let socketIndex: [[SocketID: Int]]
    let stationOfSocket: [Int32]

    /// Per cell: its start, occupant and whether it was ever freed, together so that judging a
    /// reservation reads one cache line of the model's cell state.
    var cells: [Cell]
    /// Per (socket, date): open hours.
    var open: [UInt32]

    var bCell: [Int32] = []
    var bUser: [Int32] = []
    var bStart: [Int64] = []
    var bStatus: [Status] = []
    var bID: [UInt64] = []
    var idMap = BookingIndex()

    let firstUser: UInt64
    let userCount: Int
    var userIDs: [UInt64]
    var extraUsers: [UInt64: Int32] = [:]
    var limits: [Int32]
    /// Per user: active bookings that had not ended when last looked at.
    var upcoming: [[Int32]]

    init(_ p: PreparedScenario) {
        days = Int32(p.days)
        firstDay = p.firstDay
        rules = p.rules
        let policy = p.rules.policy
        notice = policy.minimumNoticeSeconds
        cutoff = policy.cancellationCutoffSeconds
        switch policy.horizon {
        case .unlimited: (lastDay, rollingDays) = (nil, nil)
        case .lastDate(let d): (lastDay, rollingDays) = (d.dayNumber, nil)
        case .rollingDays(let n): (lastDay, rollingDays) = (nil, Int32(n))
        }
        var regular: [UInt32] = []
        var base: [Int32] = []
        var stationOf: [Int32] = []
        for (i, station) in p.rules.catalog.stations.enumerated() {
            base.append(Int32(regular.count))
            for socket in station.sockets {
                regular.append((socket.openingHours ?? station.openingHours).mask)
                stationOf.append(Int32(i))
            }
        }
        self.regular = regular
        socketBase = base
        let stations = p.rules.catalog.stations
        stationIndex = Dictionary(
            stations.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        socketIndex = stations.map { station in
            Dictionary(station.sockets.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
        stationOfSocket = stationOf
        cells = p.starts.map { Cell(start: $0) }
        open = []
        open.reserveCapacity(regular.count * p.days)
        for mask in regular { open.append(contentsOf: repeatElement(mask, count: p.days)) }
        firstUser = p.firstUser
        userCount = p.userCount
        todayAt = [Int64](repeating: Int64.min, count: p.rules.catalog.stations.count)
        todayValue = [Int32](repeating: 0, count: p.rules.catalog.stations.count)
        userIDs = []
        let defaultLimit = Int32(clamping: policy.maxUpcomingBookings)
        limits = [Int32](repeating: defaultLimit, count: p.userCount)
        upcoming = [[Int32]](repeating: [], count: p.userCount)
        for entry in policy.userLimits where entry.user.rawValue >= firstUser {
            let offset = entry.user.rawValue - firstUser
            if offset < UInt64(p.userCount) { limits[Int(offset)] = Int32(clamping: entry.limit) }
        }
    }

    /// Per station: the `now` its local date was last computed at, and that date.
    var todayAt: [Int64] = []
    var todayValue: [Int32] = []

    /// The station's local date at `now`, cached while `now` stays the same.
    @inline(__always)
    mutating func today(station: Int, at now: Int64) -> Int32 {
        if todayAt[station] == now { return todayValue[station] }
        let value = rules.catalog.localDate(ofStation: Int32(station), at: Instant(secondsSinceEpoch: now)).dayNumber
        todayAt[station] = now
        todayValue[station] = value
        return value
    }

    /// The dense index of a user id.
    @inline(__always)
    mutating func user(_ id: UInt64) -> Int32 {
        if id >= firstUser, id - firstUser < UInt64(userCount) { return Int32(truncatingIfNeeded: id - firstUser) }
        if let index = extraUsers[id] { return index }
        let index = Int32(limits.count)
        extraUsers[id] = index
        userIDs.append(id)
        limits.append(Int32(clamping: rules.policy.limit(for: UserID(id))))
        upcoming.append([])
        return index
    }

    func userID(_ index: Int32) -> UInt64 {
        Int(index) < userCount ? firstUser + UInt64(index) : userIDs[Int(index) - userCount]
    }

    /// How many of the user's active bookings have not ended at `now` (time never goes back).
    @inline(__always)
    mutating func upcomingCount(_ u: Int32, at now: Int64) -> Int {
        let list = upcoming[Int(u)]
        if list.isEmpty { return 0 }
        if list.count < Int(limits[Int(u)]) { return list.count }
        upcoming[Int(u)].removeAll { !Booking.isUpcoming(start: bStart[Int($0)], at: now) }
        return upcoming[Int(u)].count
    }

    /// The refusal the rules require for a reservation of `cell` by `u` at `now`, or `nil` to accept.
    @inline(__always)
    mutating func expectReserve(_ cell: Int32, user u: Int32, at now: Int64) -> Rejection.Reason? {
        let start = cells[Int(cell)].start
        if start == Int64.min { return .nonexistentLocalTime }
        if start < now { return .slotInPast }
        if start < now &+ notice { return .tooSoon }
        let grid = CellGrid(days: days, firstDay: firstDay)
        let day = grid.day(ofCell: cell)
        if let lastDay, day > lastDay { return .beyondHorizon }
        if let rollingDays,
            day > today(station: Int(stationOfSocket[Int(grid.socket(ofCell: cell))]), at: now) &+ rollingDays
        {
            return .beyondHorizon
        }
        let mask = open[Int(grid.socketDay(ofCell: cell))]
        if mask == 0 { return .socketClosed }
        if mask & (1 << UInt32(grid.hour(ofCell: cell))) == 0 { return .outsideOpeningHours }
        if cells[Int(cell)].occupant != 0 { return .slotTaken }
        if u >= 0, upcomingCount(u, at: now) >= Int(limits[Int(u)]) { return .userLimitReached }
        return nil
    }

    @discardableResult
    mutating func accept(_ cell: Int32, user u: Int32, id: UInt64) -> Int32 {
        let index = Int32(bCell.count)
        bCell.append(cell)
        bUser.append(u)
        bStart.append(cells[Int(cell)].start)
        bStatus.append(.active)
        bID.append(id)
        idMap[id] = index
        cells[Int(cell)].occupant = index + 1
        upcoming[Int(u)].append(index)
        return index
    }

    func expectCancel(_ b: Int32, by u: Int32, at now: Int64) -> Rejection.Reason? {
        if bUser[Int(b)] != u { return .notOwner }
        if bStatus[Int(b)] != .active { return .alreadyCancelled }
        if !(now < bStart[Int(b)] - cutoff) { return .cancellationCutoffPassed }
        return nil
    }

    mutating func release(_ b: Int32, as status: Status) {
        bStatus[Int(b)] = status
        let cell = Int(bCell[Int(b)])
        if cells[cell].occupant == b + 1 { cells[cell].occupant = 0 }
        cells[cell].freed = true
        upcoming[Int(bUser[Int(b)])].removeAll { $0 == b }
    }

    /// The flat sockets a change targets.
    func sockets(of change: AvailabilityChange) -> [Int32] {
        guard let station = stationIndex[change.station] else { return [] }
        let base = socketBase[station]
        if let socket = change.socket {
            return socketIndex[station][socket].map { [base + Int32($0)] } ?? []
        }
        return rules.catalog.stations[station].sockets.indices.map { base + Int32($0) }
    }

    /// The bookings a change must displace, sorted; `refuse` is whether the rule refuses it.
    func expectedDisplaced(by change: AvailabilityChange) -> [Int32] {
        let offset = change.date.dayNumber &- firstDay
        guard offset >= 0, offset < days else { return [] }
        var result: [Int32] = []
        for socket in sockets(of: change) {
            let mask = change.hours?.mask ?? regular[Int(socket)]
            for hour in 0..<Int32(24) where mask & (1 << UInt32(hour)) == 0 {
                let cell = CellGrid(days: days, firstDay: firstDay).cell(socket: socket, dayOffset: offset, hour: hour)
                if cells[Int(cell)].occupant != 0 { result.append(cells[Int(cell)].occupant - 1) }
            }
        }
        return result.sorted()
    }

    /// Applies a change the scheduler accepted, releasing the displaced bookings.
    mutating func apply(_ change: AvailabilityChange, displaced: [Int32]) {
        for (socketDay, mask) in openHours(after: change) { open[socketDay] = mask }
        for b in displaced { release(b, as: .displaced) }
    }

    /// The socket-days `change` sets, with the open hours it gives each; empty outside the
    /// scenario's dates.
    func openHours(after change: AvailabilityChange) -> [(socketDay: Int, mask: UInt32)] {
        let offset = change.date.dayNumber &- firstDay
        guard offset >= 0, offset < days else { return [] }
        return sockets(of: change).map { socket in
            (Int(socket &* days &+ offset), change.hours?.mask ?? regular[Int(socket)])
        }
    }

    /// What a query of `cell` at `now` should answer.
    mutating func expectStatus(_ cell: Int32, at now: Int64) -> SlotStatus {
        switch expectReserve(cell, user: -1, at: now) {
        case .nonexistentLocalTime: .nonexistent
        case .slotInPast: .past
        case .tooSoon: .tooSoon
        case .beyondHorizon: .beyondHorizon
        case .socketClosed: .closed
        case .outsideOpeningHours: .outsideHours
        case .slotTaken: .booked
        default: .free
        }
    }

    var activeCount: Int { bStatus.reduce(0) { $0 + ($1 == .active ? 1 : 0) } }
}

/// Booking id → model booking index. The ids one ``Ledger`` assigns are small and dense, so most
/// live in an array; any other id goes to a dictionary.
struct BookingIndex {
    /// Index + 1 per id below `denseLimit`, 0 when absent.
    private var dense: [Int32] = []
    private var sparse: [UInt64: Int32] = [:]
    private static let denseLimit: UInt64 = 1 << 26

    subscript(id: UInt64) -> Int32? {
        get {
            guard id < Self.denseLimit else { return sparse[id] }
            let i = Int(id)
            return i < dense.count && dense[i] != 0 ? dense[i] - 1 : nil
        }
        set {
            guard id < Self.denseLimit else {
                sparse[id] = newValue
                return
            }
            let i = Int(id)
            if i >= dense.count {
                guard newValue != nil else { return }
                dense.append(contentsOf: repeatElement(0, count: max(i + 1 - dense.count, dense.count)))
            }
            dense[i] = newValue.map { $0 + 1 } ?? 0
        }
    }
}
