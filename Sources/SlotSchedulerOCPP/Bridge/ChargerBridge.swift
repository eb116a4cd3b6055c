import SlotScheduler

/// Bookings ↔ chargers over OCPP 2.0.1, without a transport: it is told when a station connects,
/// each text message it sends, and that time passed; it answers with the frames to send. `now` is
/// always an input, and call ids are counted, so a run is deterministic.
///
/// - Bookings → `ReserveNow`: an active booking not checked in is held at its EVSE from
///   ``ChargerTiming/reserveLeadSeconds`` before its start until its start + the no-show grace
///   (the reservation's expiry). One cancelled, moved or displaced after that gets
///   `CancelReservation`. A (re)connection or a `BootNotification` sends every reservation again
///   (a `ReserveNow` with a known id replaces it, so this is idempotent).
/// - `StatusNotification` `Faulted`/`Unavailable` closes the socket from the current hour for
///   ``ChargerTiming/faultHorizonHours`` (extended while the fault lasts), displacing the bookings
///   there (`socketFaulted`); `Available` reopens the closed hours that have not started.
/// - `TransactionEvent` `Started` (or `Updated`) or `Authorize` with a user's token (`idToken` =
///   the user id) checks in that user's booking at the station (at the EVSE, when named) within
///   the check-in window, presenting the socket's access code when it has one: the charger is
///   the socket.
/// - `TransactionEvent` `Ended` checks out the booking its transaction checked in, or else the
///   token's user's booking checked in at the station (at the EVSE, when named): the booking is
///   fulfilled, its slot freed.
///
/// The bookings are read with `BookingService.bookings(at:startingIn:)` and changed through
/// the service, so every store works. Its own state (what each station was sent and answered,
/// the faults) lives in memory: after a restart every station is sent its reservations again on
/// its next connection.
public actor ChargerBridge {
    public let service: any BookingService
    public let timing: ChargerTiming
    public let evses: EVSEMap

    /// Per connected station: what it should hold and the calls it has not answered.
    private var links: [StationID: Link] = [:]
    /// What each booking's charger was told and answered.
    private var reservations: [BookingID: ChargerReservation] = [:]
    private var faults: [StationID: [SocketID: SocketFault]] = [:]
    /// Per station, the transactions whose token checked a booking in, oldest first (at most
    /// ``sessionsKept``): what an `Ended` without the token checks out.
    private var sessions: [StationID: [Session]] = [:]
    private var callsMade: UInt64 = 0
    /// One operation at a time, in arrival order: an actor lets another call in at each `await`
    /// on the store, and a tick extending a fault while the station's `Available` reopens it
    /// would put the fault back.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private struct Link {
        var held: [BookingID: Held] = [:]
        var pending: [String: Pending] = [:]
    }

    /// A reservation the station was asked to hold.
    private struct Held: Hashable {
        var socket: SocketID
        var start: Instant
    }

    private enum Pending {
        case reserve(BookingID)
        case cancel(BookingID)
    }

    /// A transaction that checked `booking` in for `user`.
    private struct Session {
        var transaction: String
        var booking: BookingID
        var user: UserID
    }

    /// The transactions remembered per station: far more than a station's EVSEs charge at once.
    static let sessionsKept = 256

    public init(service: any BookingService, timing: ChargerTiming = ChargerTiming(), evses: EVSEMap) {
        self.service = service
        self.timing = timing
        self.evses = evses
    }

    /// The stations connected now, in order.
    public var connectedStations: [StationID] { links.keys.sorted() }

    /// What `booking`'s charger was told and answered, if anything.
    public func reservation(of booking: BookingID) -> ChargerReservation? { reservations[booking] }

    /// A station connected (a second connection replaces the first): every reservation it should
    /// hold now is sent, whatever an earlier connection was sent.
    public func connect(_ station: StationID, at now: Instant) async -> [OCPPFrame] {
        await turn()
        defer { done() }
        links[station] = Link()
        return await plan(station, at: now)
    }

    /// A station's connection ended: calls it did not answer are failed.
    public func disconnect(_ station: StationID) {
        guard let link = links.removeValue(forKey: station) else { return }
        for case .reserve(let id) in link.pending.values where reservations[id]?.status == .sent {
            reservations[id]?.status = .failed
        }
    }

    /// Time passed: faults extended, and for each connected station the reservations that
    /// entered their lead, and the cancellations of bookings that changed.
    public func tick(at now: Instant) async -> [(station: StationID, frame: OCPPFrame)] {
        await turn()
        defer { done() }
        for station in faults.keys.sorted() {
            for socket in (faults[station] ?? [:]).keys.sorted() {
                await close(socket, at: station, now: now)
            }
        }
        var frames: [(station: StationID, frame: OCPPFrame)] = []
        for station in links.keys.sorted() {
            frames += await plan(station, at: now).map { (station, $0) }
        }
        return frames
    }

    /// One text message from `station`: the answer to send back (for a call) and any calls to
    /// send after it. A message that cannot be read gets a CALLERROR, never a crash.
    public func receive(_ text: String, from station: StationID, at now: Instant) async -> [OCPPFrame] {
        await turn()
        defer { done() }
        let frame: OCPPFrame
        do {
            frame = try OCPPFrame(parsing: text)
        } catch {
            return [error.answer]
        }
        switch frame {
        case .call(let id, let action, let payload):
            do {
                return try await call(action, payload: payload, id: id, from: station, at: now)
            } catch {
                return [error.answer]
            }
        case .result(let id, let payload):
            answered(id, from: station, with: payload)
            return []
        case .error(let id, _, _):
            answered(id, from: station, with: nil)
            return []
        }
    }

    private func turn() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func done() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }

    // MARK: - Calls from the station

    private func call(_ action: String, payload: JSONValue, id: String, from station: StationID, at now: Instant)
        async throws(OCPPFrameError) -> [OCPPFrame]
    {
        func read<M: OCPPRequest>(_ type: M.Type) throws(OCPPFrameError) -> M {
            try payload.decoded(as: M.self, action: action, id: id)
        }
        switch action {
        case BootNotificationRequest.action:
            _ = try read(BootNotificationRequest.self)
            let answer = OCPPFrame.result(
                id: id,
                BootNotificationRequest.Response(
                    currentTime: OCPPDateTime(now), interval: timing.heartbeatIntervalSeconds))
            // A station that booted holds no reservation: send them all again.
            links[station] = Link()
            return [answer] + (await plan(station, at: now))
        case HeartbeatRequest.action:
            _ = try read(HeartbeatRequest.self)
            return [.result(id: id, HeartbeatRequest.Response(currentTime: OCPPDateTime(now)))]
        case StatusNotificationRequest.action:
            let message = try read(StatusNotificationRequest.self)
            if let socket = evses.socket(evseId: message.evseId, connectorId: message.connectorId, at: station) {
                if message.connectorStatus.isOutOfService {
                    await close(socket, at: station, now: now)
                } else if message.connectorStatus == .available {
                    await reopen(socket, at: station, now: now)
                }
            }
            return [.result(id: id, EmptyResponse())] + (await plan(station, at: now))
        case AuthorizeRequest.action:
            let message = try read(AuthorizeRequest.self)
            let status = await checkIn(message.idToken, socket: nil, transaction: nil, at: station, now: now)
            return [.result(id: id, AuthorizeRequest.Response(idTokenInfo: IdTokenInfo(status: status)))]
                + (await plan(station, at: now))
        case TransactionEventRequest.action:
            let message = try read(TransactionEventRequest.self)
            let socket = message.evse.flatMap {
                evses.socket(evseId: $0.id, connectorId: $0.connectorId, at: station)
            }
            let transaction = message.transactionInfo.transactionId
            let status: IdTokenInfo.Status
            if message.eventType == .ended {
                status = await checkOut(
                    message.idToken, transaction: transaction, socket: socket, at: station, now: now)
            } else if let token = message.idToken {
                status = await checkIn(token, socket: socket, transaction: transaction, at: station, now: now)
            } else {
                return [.result(id: id, TransactionEventRequest.Response())]
            }
            // OCPP 2.0.1: idTokenInfo answers a request that carried an idToken, and only such a one.
            let info = message.idToken == nil ? nil : IdTokenInfo(status: status)
            return [.result(id: id, TransactionEventRequest.Response(idTokenInfo: info))]
                + (await plan(station, at: now))
        case ReservationStatusUpdateRequest.action:
            let message = try read(ReservationStatusUpdateRequest.self)
            if let booking = links[station]?.held.keys.first(where: {
                ChargerReservation.reservationID(of: $0) == message.reservationId
            }) {
                links[station]?.held[booking] = nil
                reservations[booking]?.status = message.reservationUpdateStatus == .expired ? .expired : .removed
            }
            return [.result(id: id, EmptyResponse())]
        default:
            throw OCPPFrameError(id: id, code: .notImplemented, "\(action) is not handled by this central system")
        }
    }

    /// An answer to one of the bridge's calls (`nil` for a CALLERROR).
    private func answered(_ id: String, from station: StationID, with payload: JSONValue?) {
        guard let pending = links[station]?.pending.removeValue(forKey: id) else { return }
        guard case .reserve(let booking) = pending, reservations[booking]?.status == .sent else { return }
        let answer = payload.flatMap {
            try? $0.decoded(as: ReserveNowRequest.Response.self, action: ReserveNowRequest.action, id: id)
        }
        reservations[booking]?.status =
            switch answer?.status {
            case .accepted: .accepted
            case .faulted: .faulted
            case .occupied: .occupied
            case .rejected: .rejected
            case .unavailable: .unavailable
            case nil: .failed
            }
    }

    // MARK: - Reservations

    /// The calls that bring `station` to hold exactly the reservations it should at `now`.
    private func plan(_ station: StationID, at now: Instant) async -> [OCPPFrame] {
        guard links[station] != nil else { return [] }
        let grace = service.rules.policy.noShowGraceSeconds
        // Held from the lead before the start until the start + grace: starts in (now − grace, now + lead].
        let window = now.offset(by: -grace).offset(by: 1)..<now.offset(by: timing.reserveLeadSeconds).offset(by: 1)
        guard let bookings = try? await service.bookings(at: station, startingIn: window),
            var link = links[station]
        else { return [] }
        var frames: [OCPPFrame] = []
        var wanted: [BookingID: Held] = [:]
        var usedByCheckIn: Set<BookingID> = []
        for booking in bookings {
            guard booking.checkedInAt == nil else {
                usedByCheckIn.insert(booking.id)
                continue
            }
            guard let address = evses.address(of: booking.slot.socket, at: station) else { continue }
            let held = Held(socket: booking.slot.socket, start: booking.start)
            wanted[booking.id] = held
            guard link.held[booking.id] != held else { continue }
            let reservationId = ChargerReservation.reservationID(of: booking.id)
            let expiry = booking.start.offset(by: grace)
            let id = nextCallID()
            frames.append(
                .call(
                    id: id,
                    ReserveNowRequest(
                        id: reservationId, expiryDateTime: OCPPDateTime(expiry),
                        idToken: IdToken(idToken: booking.user.description), evseId: address.evseId)))
            link.pending[id] = .reserve(booking.id)
            reservations[booking.id] = ChargerReservation(
                reservationId: reservationId, station: station, evse: address, status: .sent,
                displacedBecause: reservations[booking.id]?.displacedBecause)
        }
        for (booking, held) in link.held.sorted(by: { $0.key < $1.key }) where wanted[booking] == nil {
            if usedByCheckIn.contains(booking) {
                reservations[booking]?.status = .used
            } else if held.start.offset(by: grace) > now {
                let id = nextCallID()
                frames.append(
                    .call(
                        id: id, CancelReservationRequest(reservationId: ChargerReservation.reservationID(of: booking))))
                link.pending[id] = .cancel(booking)
                reservations[booking]?.status = .cancelled
            }
        }
        link.held = wanted
        // The station may have gone while the store answered: then nothing is sent.
        guard links[station] != nil else { return [] }
        links[station] = link
        return frames
    }

    private func nextCallID() -> String {
        callsMade += 1
        return "csms-\(callsMade)"
    }

    // MARK: - Check-in

    /// Checks in the booking of the token's user at `station` (at `socket` when known) whose
    /// check-in window holds `now`, with its socket's access code (the charger is the socket), and
    /// remembers `transaction` as its session: the token's answer.
    private func checkIn(
        _ token: IdToken, socket: SocketID?, transaction: String?, at station: StationID, now: Instant
    ) async -> IdTokenInfo.Status {
        guard let user = token.user else { return .unknown }
        let policy = service.rules.policy
        // The check-in window: starts in (now − grace, now + early].
        let window =
            now.offset(by: -policy.noShowGraceSeconds).offset(
                by: 1)..<now.offset(by: policy.earlyCheckInSeconds).offset(by: 1)
        guard let bookings = try? await service.bookings(at: station, startingIn: window) else { return .unknown }
        let mine = bookings.filter { $0.user == user && (socket == nil || $0.slot.socket == socket) }
        if let done = mine.first(where: { $0.checkedInAt != nil }) {
            reservations[done.id]?.status = .used
            remember(transaction, checkedIn: done, at: station)
            return .accepted
        }
        for booking in mine {
            let code = accessCode(of: booking.slot.socket, at: station)
            if (try? await service.checkIn(booking.id, by: user, accessCode: code, at: now)) != nil {
                reservations[booking.id]?.status = .used
                remember(transaction, checkedIn: booking, at: station)
                return .accepted
            }
        }
        return .notAtThisTime
    }

    /// The code the socket carries, if any: the bridge presents it for the charger, which is the
    /// socket (read from the catalog in service, so a changed catalog's code applies at once).
    private func accessCode(of socket: SocketID, at station: StationID) -> String? {
        service.rules.catalog.station(station)?.sockets.first { $0.id == socket }?.accessCode
    }

    private func remember(_ transaction: String?, checkedIn booking: Booking, at station: StationID) {
        guard let transaction else { return }
        var kept = sessions[station, default: []]
        kept.removeAll { $0.transaction == transaction }
        kept.append(Session(transaction: transaction, booking: booking.id, user: booking.user))
        if kept.count > Self.sessionsKept { kept.removeFirst(kept.count - Self.sessionsKept) }
        sessions[station] = kept
    }

    // MARK: - Check-out

    /// Ends a charging session: checks out the booking `transaction` checked in, when the bridge
    /// saw it do so; else the token's user's booking checked in at `station` (at `socket` when
    /// known) that started within ``ChargerTiming/sessionLookbackSeconds``, the earliest first.
    /// Nothing changes when there is none (`NotAtThisTime`), or the token is not a user
    /// (`Unknown`).
    private func checkOut(
        _ token: IdToken?, transaction: String, socket: SocketID?, at station: StationID, now: Instant
    ) async -> IdTokenInfo.Status {
        if let session = sessions[station]?.first(where: { $0.transaction == transaction }) {
            sessions[station]?.removeAll { $0.transaction == transaction }
            if sessions[station]?.isEmpty == true { sessions[station] = nil }
            if (try? await service.checkOut(session.booking, by: session.user, at: now)) != nil { return .accepted }
        }
        guard let token else { return .notAtThisTime }
        guard let user = token.user else { return .unknown }
        // Checked in by `now`: started up to the lookback ago, or starting within the early check-in.
        let window =
            now.offset(by: -timing.sessionLookbackSeconds).offset(
                by: 1)..<now.offset(by: service.rules.policy.earlyCheckInSeconds).offset(by: 1)
        guard let bookings = try? await service.bookings(at: station, startingIn: window) else { return .unknown }
        let open = bookings.filter {
            $0.user == user && $0.checkedInAt != nil && (socket == nil || $0.slot.socket == socket)
        }
        for booking in open where (try? await service.checkOut(booking.id, by: user, at: now)) != nil {
            return .accepted
        }
        return .notAtThisTime
    }

    // MARK: - Faults

    /// Closes `socket` from the current hour up to the fault horizon (the hours not closed yet),
    /// displacing the bookings there (``SocketFault`` states the rule).
    private func close(_ socket: SocketID, at station: StationID, now: Instant) async {
        let catalog = service.rules.catalog
        var fault = faults[station]?[socket] ?? SocketFault(station: station, socket: socket, at: now)
        for closure in fault.closing(at: now, horizonHours: timing.faultHorizonHours, catalog: catalog) {
            guard let displaced = try? await service.changeAvailability(closure.change, onBookings: .displace, at: now)
            else { continue }
            fault.record(closure)
            for booking in displaced {
                var reservation =
                    reservations[booking.id]
                    ?? ChargerReservation(
                        reservationId: ChargerReservation.reservationID(of: booking.id), station: station,
                        evse: evses.address(of: socket, at: station), status: .none)
                reservation.displacedBecause = "socketFaulted"
                reservations[booking.id] = reservation
            }
        }
        fault.extend(at: now, horizonHours: timing.faultHorizonHours)
        faults[station, default: [:]][socket] = fault
    }

    /// Reopens the hours a fault of `socket` closed that have not started.
    private func reopen(_ socket: SocketID, at station: StationID, now: Instant) async {
        guard let fault = faults[station]?.removeValue(forKey: socket) else { return }
        for change in fault.reopening(at: now, catalog: service.rules.catalog) {
            _ = try? await service.changeAvailability(change, onBookings: .displace, at: now)
        }
    }
}
