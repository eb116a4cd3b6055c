import SlotScheduler

/// One lifecycle call (issue 16) as threads mode makes it, from a worker's draw or a scripted
/// step: what to ask the store, and the history operation that records it.
enum LifecycleCall {
    case hold(Slot)
    case confirm(Slot)
    case releaseHold(Slot)
    /// `booking` 0: the step named no booking (refused `unknownBooking` without a call).
    case reschedule(RescheduleRequest)
    case anySocket(AnySocketRequest)
    /// `booking` 0: the step named no booking (refused `unknownBooking` without a call).
    case checkIn(BookingID, accessCode: String?)
    /// `booking` 0: the step named no booking (refused `unknownBooking` without a call).
    case checkOut(BookingID, leftAt: Coordinate?)
}

extension Simulator {
    /// The call and its history operation for a drawn lifecycle operation; `nil` for other draws.
    static func lifecycleCall(_ drawn: DrawnOperation, _ p: PreparedScenario, op: inout TimedOperation)
        -> LifecycleCall?
    {
        switch drawn {
        case .hold(let cell, let user):
            (op.kind, op.cell, op.user) = (.hold, cell, user)
            return .hold(p.slot(ofCell: cell))
        case .confirm(let cell, let user):
            (op.kind, op.cell, op.user) = (.confirm, cell, user)
            return .confirm(p.slot(ofCell: cell))
        case .releaseHold(let cell, let user):
            (op.kind, op.cell, op.user) = (.releaseHold, cell, user)
            return .releaseHold(p.slot(ofCell: cell))
        case .reschedule(let booking, _, let to, let user):
            (op.kind, op.cell, op.user, op.booking) = (.reschedule, to, user, booking)
            return .reschedule(
                RescheduleRequest(booking: BookingID(booking), user: UserID(user), to: p.slot(ofCell: to)))
        case .anySocket(let request, let cell):
            (op.kind, op.cell, op.user) = (.anySocket, cell, request.user.rawValue)
            op.requestedCell = cell
            op.minimumPowerKW = request.minimumPowerKW
            return .anySocket(request)
        case .checkIn(let booking, _, let user, let code):
            (op.kind, op.user, op.booking) = (.checkIn, user, booking)
            op.accessCode = code
            return .checkIn(BookingID(booking), accessCode: code)
        case .checkOut(let booking, _, let user, let place):
            (op.kind, op.user, op.booking) = (.checkOut, user, booking)
            op.leftAt = place
            return .checkOut(BookingID(booking), leftAt: place)
        default: return nil
        }
    }

    /// Makes a lifecycle call and records its outcome in `op` (already invoked): the booking a
    /// confirm or any-socket request made and the socket it was given.
    static func perform(
        _ call: LifecycleCall, _ p: PreparedScenario, service: any BookingService, now: Instant,
        op: inout TimedOperation
    ) async {
        do {
            switch call {
            case .hold(let slot): _ = try await service.hold(slot, for: UserID(op.user), reminder: nil, at: now)
            case .confirm(let slot):
                op.booking = try await service.confirm(slot, by: UserID(op.user), at: now).id.rawValue
            case .releaseHold(let slot): _ = try await service.releaseHold(slot, by: UserID(op.user), at: now)
            case .reschedule(let request):
                guard request.booking.rawValue != 0 else { throw Rejection(.unknownBooking) }
                _ = try await service.reschedule(request, at: now)
            case .anySocket(let request):
                let booking = try await service.reserve(request, at: now)
                op.booking = booking.id.rawValue
                op.cell = p.cell(of: booking.slot) ?? -1
            case .checkIn(let id, let code):
                guard id.rawValue != 0 else { throw Rejection(.unknownBooking) }
                _ = try await service.checkIn(id, by: UserID(op.user), accessCode: code, at: now)
            case .checkOut(let id, let place):
                guard id.rawValue != 0 else { throw Rejection(.unknownBooking) }
                if let place {
                    _ = try await service.checkOut(id, by: UserID(op.user), leftAt: place, at: now)
                } else {
                    _ = try await service.checkOut(id, by: UserID(op.user), at: now)
                }
            }
            op.outcome = -1
        } catch let r as Rejection {
            op.outcome = Reasons.code(r.reason)
        } catch { op.outcome = -2 }
    }

    /// Runs a scripted lifecycle step (process -1) and records it.
    static func runLifecycleStep(
        _ command: StepCommand, _ step: PreparedScenario.CompiledStep, _ p: PreparedScenario,
        service: any BookingService, clock: MonotonicClock, sink: inout HistorySink
    ) async -> StepResult {
        var op = TimedOperation(
            process: -1, kind: .hold, user: step.user, cell: step.cell, now: step.now, invoke: 0, complete: 0)
        let call: LifecycleCall
        switch command {
        case .hold(let slot, _): call = .hold(slot)
        case .confirm(let slot, _):
            op.kind = .confirm
            call = .confirm(slot)
        case .releaseHold(let slot, _):
            op.kind = .releaseHold
            call = .releaseHold(slot)
        case .reschedule(let booking, let to, let cell, let requestID):
            (op.kind, op.cell, op.booking) = (.reschedule, cell, booking ?? 0)
            op.requestID = requestID?.rawValue
            call = .reschedule(
                RescheduleRequest(
                    booking: BookingID(booking ?? 0), user: UserID(step.user), to: to, requestID: requestID))
        case .anySocket(let request):
            // The request's cell: its first matching socket's, which names the connector it asks for.
            let socket = p.rules.catalog.station(request.station)?.sockets.first { request.matches($0) }
            op.kind = .anySocket
            op.cell =
                socket.flatMap {
                    p.cell(of: Slot(station: request.station, socket: $0.id, date: request.date, hour: request.hour))
                } ?? -1
            op.requestedCell = op.cell
            op.minimumPowerKW = request.minimumPowerKW
            call = .anySocket(request)
        case .checkIn(let booking, let code):
            (op.kind, op.cell, op.booking) = (.checkIn, -1, booking ?? 0)
            op.accessCode = code
            call = .checkIn(BookingID(booking ?? 0), accessCode: code)
        case .checkOut(let booking, let place):
            (op.kind, op.cell, op.booking) = (.checkOut, -1, booking ?? 0)
            op.leftAt = place
            call = .checkOut(BookingID(booking ?? 0), leftAt: place)
        default: return StepResult(got: "error")
        }
        let index = sink.invoke(&op, clock: clock)
        await perform(call, p, service: service, now: Instant(secondsSinceEpoch: step.now), op: &op)
        sink.complete(&op, index: index, clock: clock)
        let got =
            switch op.outcome {
            case -1: "accepted"
            case -2: "error"
            default: Reasons.name(op.outcome)
            }
        return StepResult(got: got, booking: op.kind == .confirm || op.kind == .anySocket ? op.booking : 0)
    }

    /// Keeps a worker's draw pools in step with an accepted lifecycle call, as the deterministic
    /// mode does: holds to confirm or release, new bookings to cancel or move, moved bookings' cells.
    static func noteLifecycle(_ op: TimedOperation, pools: inout DrawPools, rng: inout SplitMix64) {
        guard op.outcome == -1 else { return }
        switch op.kind {
        case .hold: pools.rememberHold(.init(user: op.user, cell: op.cell), rng: &rng)
        case .confirm, .anySocket:
            // A repeated confirm returns the booking again: it is in the pools already.
            guard op.booking != 0, pools.cellOf[op.booking] == nil else { return }
            pools.add(op.booking, of: op.user, cell: op.cell)
            pools.noteBooker(op.user)
        case .reschedule:
            if pools.cellOf[op.booking] != nil { pools.cellOf[op.booking] = op.cell }
        case .checkIn: pools.rememberCheckIn(.init(booking: op.booking, owner: op.user), rng: &rng)
        case .checkOut:
            pools.remove(op.booking, of: op.user)
            pools.checkedIn.removeAll { $0.booking == op.booking }
        default: break
        }
    }
}

extension PreparedScenario {
    /// The cell of a slot of the scenario's domain; `nil` outside it.
    func cell(of slot: Slot) -> Int32? {
        guard let ref = try? rules.catalog.resolve(slot) else { return nil }
        let cell = self.cell(socket: ref.socket, day: ref.day, hour: ref.hour)
        return cell >= 0 && Int(cell) < cellCount && self.slot(ofCell: cell) == slot ? cell : nil
    }
}
