import SlotScheduler

/// What a scripted step asks for, whichever mode runs it.
enum StepCommand {
    /// A reservation; `repeatOf` is the booking an earlier accepted step with the same user,
    /// request id and slot made (what the repeat must return), else 0.
    case reserve(ReservationRequest, cell: Int32, repeatOf: UInt64)
    /// A cancel of the booking the labelled reserve step made; `nil` when that step made none.
    case cancel(booking: UInt64?)
    case query(cell: Int32)
    case change(AvailabilityChange, DisplacementRule)
    case hold(Slot, cell: Int32)
    case confirm(Slot, cell: Int32)
    case releaseHold(Slot, cell: Int32)
    /// A move of the booking the labelled step made (`nil` when it made none) to `to`.
    case reschedule(booking: UInt64?, to: Slot, cell: Int32, requestID: RequestID?)
    case anySocket(AnySocketRequest)
    /// A check-in of the booking the labelled step made (`nil` when that step made none),
    /// presenting `accessCode`.
    case checkIn(booking: UInt64?, accessCode: String?)
    /// A check-out of the booking the labelled step made (`nil` when that step made none),
    /// leaving its resource at `leftAt` when given.
    case checkOut(booking: UInt64?, leftAt: Coordinate?)
}

/// What a step gave: the answer its `expect` is compared with (`accepted`, a refusal reason, a
/// slot status or `error`), the booking a reserve made and the bookings a change displaced.
struct StepResult {
    var got: String
    var booking: UInt64 = 0
    var displaced: [UInt64] = []
}

/// The scripted steps' bookkeeping, shared by both modes: which booking each reserve step made
/// and its label, the command each step is, and the expectations each result meets or misses.
struct ScriptedSteps {
    struct RequestKey: Hashable {
        var user: UInt64
        var id: RequestID
    }

    let p: PreparedScenario
    /// The booking each accepted reserve step made, by step index.
    var stepBookings: [Int: UInt64] = [:]
    /// The label of each booking a labelled reserve step made (the first label given).
    var labelOf: [UInt64: String] = [:]
    /// The first accepted reserve step of each (user, request id): its cell and booking.
    var firstAccepted: [RequestKey: (cell: Int32, booking: UInt64)] = [:]

    init(_ p: PreparedScenario) { self.p = p }

    func command(_ step: PreparedScenario.CompiledStep) -> StepCommand? {
        switch step.step.op {
        case .reserve:
            var repeatOf: UInt64 = 0
            if let id = step.step.requestID, let earlier = firstAccepted[RequestKey(user: step.user, id: id)],
                earlier.cell == step.cell
            {
                repeatOf = earlier.booking
            }
            return .reserve(
                ReservationRequest(
                    slot: p.slot(ofCell: step.cell), user: UserID(step.user), requestID: step.step.requestID,
                    reminder: step.step.reminderSeconds.map { .seconds($0) }),
                cell: step.cell, repeatOf: repeatOf)
        case .cancel: return .cancel(booking: stepBookings[step.target])
        case .checkIn: return .checkIn(booking: stepBookings[step.target], accessCode: step.step.accessCode)
        case .checkOut: return .checkOut(booking: stepBookings[step.target], leftAt: step.step.leftAt)
        case .query: return .query(cell: step.cell)
        case .changeAvailability:
            return step.change.map { .change($0, step.step.onBookings ?? .displace) }
        case .hold: return .hold(p.slot(ofCell: step.cell), cell: step.cell)
        case .confirm: return .confirm(p.slot(ofCell: step.cell), cell: step.cell)
        case .releaseHold: return .releaseHold(p.slot(ofCell: step.cell), cell: step.cell)
        case .reschedule:
            return .reschedule(
                booking: stepBookings[step.target], to: p.slot(ofCell: step.cell), cell: step.cell,
                requestID: step.step.requestID)
        case .anySocket:
            guard let station = step.step.station, let date = step.step.date, let hour = step.step.hour,
                let connector = step.step.connector
            else { return nil }
            return .anySocket(
                AnySocketRequest(
                    station: station, connector: ConnectorType(connector),
                    minimumPowerKW: step.step.minimumPowerKW ?? 0, date: date, hour: hour, user: UserID(step.user),
                    requestID: step.step.requestID))
        }
    }

    /// Notes what step `i` made and returns the expectations it was checked against, in order:
    /// its `expect`, then its `expectDisplaced`.
    mutating func finish(_ i: Int, _ step: PreparedScenario.CompiledStep, _ result: StepResult)
        -> [Report.ExpectationResult]
    {
        if [.reserve, .confirm, .anySocket].contains(step.step.op), result.got == "accepted" {
            stepBookings[i] = result.booking
            if let label = step.step.label, labelOf[result.booking] == nil { labelOf[result.booking] = label }
            if let id = step.step.requestID, firstAccepted[RequestKey(user: step.user, id: id)] == nil {
                firstAccepted[RequestKey(user: step.user, id: id)] = (step.cell, result.booking)
            }
        }
        var results: [Report.ExpectationResult] = []
        if let want = step.step.expect {
            let what = "steps[\(i)] \(step.step.op.rawValue)" + (step.step.note.map { " (\($0))" } ?? "")
            results.append(.init(what: what, expected: want, actual: result.got, pass: want == result.got))
        }
        if step.step.op == .changeAvailability, let labels = step.step.expectDisplaced {
            let got = result.displaced.map { labelOf[$0] ?? "booking \($0)" }.sorted()
            let want = labels.sorted()
            results.append(
                .init(
                    what: "steps[\(i)] displaced", expected: "[" + want.joined(separator: ", ") + "]",
                    actual: "[" + got.joined(separator: ", ") + "]", pass: got == want))
        }
        return results
    }
}
