#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler

/// The catalog's dense indices as stored in the database: station `i` is `stations[i]`, and flat
/// socket indices run over every station's sockets in order, exactly as `Catalog` interns them
/// (so a ``SlotRef`` from `Catalog.resolve` names the same rows).
struct CatalogLayout: Sendable {
    let stations: [Station]
    let stationIndex: [StationID: Int32]
    /// First flat socket index of each station.
    let socketBase: [Int32]
    /// Station of each flat socket.
    let socketStation: [Int32]
    /// Regular open hours of each flat socket.
    let regular: [UInt32]
    /// The place of each flat socket in `Slot`'s order (station id, then socket id): what orders
    /// a user's bookings that start at the same instant, as ``UserBookings`` orders them.
    let slotRank: [Int32]

    init(_ catalog: Catalog) {
        stations = catalog.stations
        var stationIndex: [StationID: Int32] = [:]
        var socketBase: [Int32] = []
        var socketStation: [Int32] = []
        var regular: [UInt32] = []
        for (i, station) in catalog.stations.enumerated() {
            stationIndex[station.id] = Int32(i)
            socketBase.append(Int32(regular.count))
            for socket in station.sockets {
                socketStation.append(Int32(i))
                regular.append((socket.openingHours ?? station.openingHours).mask)
            }
        }
        self.stationIndex = stationIndex
        self.socketBase = socketBase
        self.socketStation = socketStation
        self.regular = regular
        let flat = catalog.stations.flatMap { station in station.sockets.map { (station.id, $0.id) } }
        var rank = [Int32](repeating: 0, count: flat.count)
        for (place, socket) in flat.indices.sorted(by: { flat[$0] < flat[$1] }).enumerated() {
            rank[socket] = Int32(place)
        }
        slotRank = rank
    }

    /// The columns ``booking(_:operation:)`` reads, in order.
    static let columns =
        "id, station_idx, socket_idx, day, hour, user_id, start_at, created_at, request_id, reminder, status, checked_in_at"

    /// Runs a row decode, turning a decoding failure into a store error that names the operation.
    static func decoding<T>(_ operation: String, _ body: () throws -> T) throws(PostgresStoreError) -> T {
        do { return try body() } catch {
            throw PostgresStoreError(.unexpectedRow, operation: operation, message: String(describing: error))
        }
    }

    /// The slot a flat socket index, day and hour name.
    func slot(socket: Int32, day: Int32, hour: Int32, operation: String) throws(PostgresStoreError) -> Slot {
        guard socketStation.indices.contains(Int(socket)), (0...23).contains(hour) else {
            throw PostgresStoreError(
                .unexpectedRow, operation: operation, message: "no slot for socket \(socket) hour \(hour)")
        }
        let station = stations[Int(socketStation[Int(socket)])]
        let local = Int(socket - socketBase[Int(socketStation[Int(socket)])])
        return Slot(
            station: station.id, socket: station.sockets[local].id, date: LocalDate(dayNumber: day), hour: Int(hour))
    }

    /// A booking from a row of ``columns``.
    func booking(_ row: PostgresRow, operation: String) throws(PostgresStoreError) -> Booking {
        let (id, _, socket, day, hour, user, start, created, request, reminder, status, checkedIn) =
            try Self.decoding(operation) {
                try row.decode(
                    (Int64, Int32, Int32, Int32, Int32, Int64, Int64, Int64, String?, Int64?, String, Int64?).self)
            }
        guard let parsed = Booking.Status(rawValue: status) else {
            throw PostgresStoreError(.unexpectedRow, operation: operation, message: "booking \(id) status \(status)")
        }
        var booking = Booking(
            id: BookingID(UInt64(bitPattern: id)),
            slot: try slot(socket: socket, day: day, hour: hour, operation: operation),
            user: UserID(UInt64(bitPattern: user)), start: Instant(secondsSinceEpoch: start),
            createdAt: Instant(secondsSinceEpoch: created), requestID: request.map(RequestID.init(rawValue:)),
            reminderOffsetSeconds: reminder, status: parsed)
        booking.checkedInAt = checkedIn.map(Instant.init(secondsSinceEpoch:))
        return booking
    }

    func ref(of slot: Slot, catalog: Catalog) throws(Rejection) -> SlotRef { try catalog.resolve(slot) }

    /// The flat socket indices an availability change targets, sorted, or the refusal the
    /// in-memory scheduler gives for an unknown station or socket.
    func targets(of change: AvailabilityChange, catalog: Catalog) throws(Rejection) -> [Int32] {
        guard let station = stationIndex[change.station] else {
            throw Rejection(.unknownStation, value: change.station.rawValue)
        }
        let sockets = stations[Int(station)].sockets
        let base = socketBase[Int(station)]
        if let socket = change.socket {
            guard let i = sockets.firstIndex(where: { $0.id == socket }) else {
                throw Rejection(.unknownSocket, value: socket.rawValue)
            }
            return [base + Int32(i)]
        }
        return sockets.indices.map { base + Int32($0) }
    }
}
#endif
