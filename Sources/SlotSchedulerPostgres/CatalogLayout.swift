#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler

/// The catalog's dense indices as stored in the database, as `Catalog` interns them (so a
/// ``SlotRef`` from `Catalog.resolve` names the same rows): station `i` is `stations[i]`, and each
/// socket has its flat index for life (`Catalog.Record`), retired ones included, so a row of a
/// retired socket is still named.
struct CatalogLayout: Sendable {
    /// Every station by index, each with every socket it had: those in service first.
    let stations: [Station]
    let stationIndex: [StationID: Int32]
    /// The flat index of each socket of `stations[i]`, in its order.
    let socketsOf: [[Int32]]
    /// How many of each station's sockets are in service (the first ones).
    let inService: [Int]
    /// Station of each flat socket, and its place in that station's `sockets`.
    let socketStation: [Int32]
    let socketLocal: [Int32]
    /// Regular open hours of each flat socket (none for a retired one).
    let regular: [UInt32]
    /// The place of each flat socket in `Slot`'s order (station id, then socket id): what orders
    /// a user's bookings that start at the same instant, as ``UserBookings`` orders them.
    let slotRank: [Int32]
    /// The access code of each flat socket (`Socket.accessCode`), retired ones included; `nil`
    /// for none. A check-in compares the code presented with it (``acceptsAccessCode(_:socket:)``).
    let accessCodes: [String?]

    init(_ catalog: Catalog) {
        let record = catalog.record
        stations = record.stations
        socketsOf = record.flatIndices
        inService = record.socketsInService.map(Int.init)
        let total = record.flatIndices.reduce(0) { $0 + $1.count }
        var stationIndex: [StationID: Int32] = [:]
        var socketStation = [Int32](repeating: 0, count: total)
        var socketLocal = [Int32](repeating: 0, count: total)
        var regular = [UInt32](repeating: 0, count: total)
        var names = [(StationID, SocketID)](repeating: ("", ""), count: total)
        var codes = [String?](repeating: nil, count: total)
        for (i, station) in record.stations.enumerated() {
            stationIndex[station.id] = Int32(i)
            for (k, f) in record.flatIndices[i].enumerated() {
                let socket = station.sockets[k]
                socketStation[Int(f)] = Int32(i)
                socketLocal[Int(f)] = Int32(k)
                names[Int(f)] = (station.id, socket.id)
                codes[Int(f)] = socket.accessCode
                if k < inService[i] { regular[Int(f)] = (socket.openingHours ?? station.openingHours).mask }
            }
        }
        self.stationIndex = stationIndex
        self.socketStation = socketStation
        self.socketLocal = socketLocal
        self.regular = regular
        accessCodes = codes
        var rank = [Int32](repeating: 0, count: total)
        for (place, socket) in names.indices.sorted(by: { names[$0] < names[$1] }).enumerated() {
            rank[socket] = Int32(place)
        }
        slotRank = rank
    }

    /// The flat indices of the sockets in service of station `index`, in catalog order.
    func socketsInService(of index: Int32) -> [Int32] { Array(socketsOf[Int(index)].prefix(inService[Int(index)])) }

    /// Whether `presented` opens flat socket `socket`, as the core's check-in decides it
    /// (`Socket.opens(with:)`).
    func acceptsAccessCode(_ presented: String?, socket: Int32) -> Bool {
        guard accessCodes.indices.contains(Int(socket)) else { return true }
        return Socket.opens(expected: accessCodes[Int(socket)], presented: presented)
    }

    /// The columns ``booking(_:operation:)`` reads, in order.
    static let columns =
        "id, station_idx, socket_idx, day, hour, user_id, start_at, created_at, request_id, reminder, status, "
        + "checked_in_at, checked_out_at"

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
        let local = Int(socketLocal[Int(socket)])
        return Slot(
            station: station.id, socket: station.sockets[local].id, date: LocalDate(dayNumber: day), hour: Int(hour))
    }

    /// A booking from a row of ``columns``.
    func booking(_ row: PostgresRow, operation: String) throws(PostgresStoreError) -> Booking {
        let (id, _, socket, day, hour, user, start, created, request, reminder, status, checkedIn, checkedOut) =
            try Self.decoding(operation) {
                try row.decode(
                    (Int64, Int32, Int32, Int32, Int32, Int64, Int64, Int64, String?, Int64?, String, Int64?, Int64?)
                        .self)
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
        booking.checkedOutAt = checkedOut.map(Instant.init(secondsSinceEpoch:))
        return booking
    }

    func ref(of slot: Slot, catalog: Catalog) throws(Rejection) -> SlotRef { try catalog.resolve(slot) }

    /// The flat socket indices an availability change targets, sorted, or the refusal the
    /// in-memory scheduler gives for an unknown station or socket.
    func targets(of change: AvailabilityChange, catalog: Catalog) throws(Rejection) -> [Int32] {
        guard let station = stationIndex[change.station], let info = catalog.station(change.station) else {
            throw Rejection(.unknownStation, value: change.station.rawValue)
        }
        let flat = socketsInService(of: station)
        if let socket = change.socket {
            guard let i = info.sockets.firstIndex(where: { $0.id == socket }) else {
                throw Rejection(.unknownSocket, value: socket.rawValue)
            }
            return [flat[i]]
        }
        return flat
    }
}
#endif
