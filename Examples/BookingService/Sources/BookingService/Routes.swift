import Foundation
import Hummingbird
import SlotScheduler

/// The HTTP contract (openapi.yaml): each handler reads its input, calls the store, and answers
/// JSON. Every failure is an ``APIError``; the ``ErrorMiddleware`` turns it into a response.
struct Routes: Sendable {
    let store: any BookingStore
    /// The OpenAPI document, served as it is on disk.
    let openAPI: Data
    /// The clock, read at the edge only: the library never reads one.
    var now: @Sendable () -> Instant = { Instant(Date()) }

    /// One operation of the contract: its path (`:name` segments are parameters), its method and
    /// its handler. The router and the 405 answers (``ErrorMiddleware``) both read this list.
    struct Operation: Sendable {
        var path: String
        var method: HTTPRequest.Method
        var handle: @Sendable (Request, BasicRequestContext) async throws -> Response
    }

    var operations: [Operation] {
        [
            Operation(path: "/stations", method: .get) { request, _ in try stations(request) },
            Operation(path: "/stations/:station/days/:date", method: .get) { try await day($0, $1) },
            Operation(path: "/reservations", method: .post) { request, _ in try await reserve(request) },
            Operation(path: "/reservations/any-socket", method: .post) { request, _ in
                try await reserveAny(request)
            },
            Operation(path: "/holds", method: .post) { request, _ in try await hold(request) },
            Operation(path: "/holds/confirm", method: .post) { request, _ in try await confirm(request) },
            Operation(path: "/holds/release", method: .post) { request, _ in try await release(request) },
            Operation(path: "/bookings/:id/reschedule", method: .post) { try await reschedule($0, $1) },
            Operation(path: "/bookings/:id/check-in", method: .post) { try await checkIn($0, $1) },
            Operation(path: "/bookings/:id", method: .get) { try await booking($0, $1) },
            Operation(path: "/bookings/:id", method: .delete) { try await cancel($0, $1) },
            Operation(path: "/users/:user/bookings", method: .get) { try await bookings($0, $1) },
            Operation(path: "/health/live", method: .get) { _, _ in Self.health(.ok, "live") },
            Operation(path: "/health/ready", method: .get) { _, _ in
                guard let reason = store.notReadyBecause else { return Self.health(.ok, "ready") }
                return Self.health(.serviceUnavailable, "not ready", reason: reason)
            },
            Operation(path: "/openapi.yaml", method: .get) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/yaml"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: openAPI)))
            },
        ]
    }

    /// `{"status": …}` (and why, when not ready), for a load balancer or an orchestrator's probes:
    /// live while the process answers; ready while the store takes writes.
    static func health(_ status: HTTPResponse.Status, _ text: String, reason: String? = nil) -> Response {
        var object = ["status": text]
        if let reason { object["reason"] = reason }
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let operations = operations
        router.add(middleware: ErrorMiddleware(operations: operations))
        for operation in operations {
            router.on(RouterPath(operation.path), method: operation.method, use: operation.handle)
        }
        return router
    }

    /// `GET /stations?q=&city=&page=&pageSize=`: one page of the catalog's search.
    func stations(_ request: Request) throws(APIError) -> Response {
        let query = try HTTPInput.query(of: request)
        let search = StationQuery(
            text: try HTTPInput.text(query["q"], name: "q"), city: try HTTPInput.text(query["city"], name: "city"),
            page: try HTTPInput.integer(query["page"], name: "page", default: 0),
            pageSize: try HTTPInput.integer(query["pageSize"], name: "pageSize", default: 20))
        let page: StationPage
        do { page = try store.rules.catalog.search(search) } catch { throw APIError(error) }
        return JSONBody.response(.ok, StationList(page), language: language(request))
    }

    /// `GET /stations/{station}/days/{date}`: the day view; 404 for a station the catalog lacks.
    func day(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let station = StationID(try HTTPInput.path("station", context))
        let text = try HTTPInput.path("date", context)
        let date: LocalDate
        do { date = try LocalDate(parsing: text) } catch { throw APIError(error) }
        do {
            let view = try await store.dayView(of: station, on: date, at: now())
            return JSONBody.response(.ok, view, language: language(request))
        } catch let rejection as Rejection {
            var error = APIError(rejection)
            if rejection.reason == .unknownStation { error.status = .notFound }
            throw error
        }
    }

    /// `POST /reservations`: 201 with a new booking, 200 with the one an earlier request with the
    /// same `requestID` made.
    func reserve(_ request: Request) async throws -> Response {
        let buffer = try await HTTPInput.body(of: request)
        let body = try ReservationBody.decode(Data(buffer.readableBytesView))
        let reservation = try await refusing { try await store.book(body.request(), at: now()) }
        return JSONBody.response(
            reservation.isReplay ? .ok : .created, reservation.booking, language: language(request))
    }

    /// `POST /reservations/any-socket`: the first free matching socket of the station (catalog
    /// order); 201 with a new booking, 200 for a replayed `requestID`.
    func reserveAny(_ request: Request) async throws -> Response {
        let body = try AnySocketBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let reservation = try await refusing { try await store.book(body.request(), at: now()) }
        return JSONBody.response(
            reservation.isReplay ? .ok : .created, reservation.booking, language: language(request))
    }

    /// `POST /holds`: 201 with the hold; the slot is the user's until its `expiresAt`.
    func hold(_ request: Request) async throws -> Response {
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let hold = try await refusing {
            try await store.hold(body.slot(), for: UserID(body.user), reminder: body.reminder, at: now())
        }
        return JSONBody.response(.created, hold, language: language(request))
    }

    /// `POST /holds/confirm`: 200 with the booking the user's live hold became (a repeat answers
    /// the same booking).
    func confirm(_ request: Request) async throws -> Response {
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let booking = try await refusing { try await store.confirm(body.slot(), by: UserID(body.user), at: now()) }
        return JSONBody.response(.ok, booking, language: language(request))
    }

    /// `POST /holds/release`: 200 with the released hold; the slot is free at once.
    func release(_ request: Request) async throws -> Response {
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let hold = try await refusing { try await store.releaseHold(body.slot(), by: UserID(body.user), at: now()) }
        return JSONBody.response(.ok, hold, language: language(request))
    }

    /// `POST /bookings/{id}/reschedule`: 200 with the booking at its new slot (or, for a replayed
    /// `requestID`, as it is now). An id the service could not have issued is unknown: 404.
    func reschedule(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let text = try HTTPInput.path("id", context)
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        guard let id = BookingID(text) else {
            throw APIError(Rejection(.unknownBooking, user: UserID(body.user), value: IdentifierRule.shortened(text)))
        }
        let move = RescheduleRequest(
            booking: id, user: UserID(body.user), to: try body.slot(), requestID: body.requestID.map(RequestID.init(_:))
        )
        let reservation = try await refusing { try await store.reschedule(move, at: now()) }
        return JSONBody.response(.ok, reservation.booking, language: language(request))
    }

    /// `POST /bookings/{id}/check-in`: 200 with the booking checked in (`checkedInAt`), by its
    /// owner, from its start − the policy's early check-in until its start + the no-show grace; a
    /// repeat answers the booking as the first check-in left it. An id the service could not have
    /// issued is unknown: 404.
    func checkIn(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let text = try HTTPInput.path("id", context)
        let body = try UserBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let user = UserID(body.user)
        guard let id = BookingID(text) else {
            throw APIError(Rejection(.unknownBooking, user: user, value: IdentifierRule.shortened(text)))
        }
        let booking = try await refusing { try await store.checkIn(id, by: user, at: now()) }
        return JSONBody.response(.ok, booking, language: language(request))
    }

    /// `GET /bookings/{id}?user=`: the booking in its current status, to its owner only.
    func booking(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (id, user) = try bookingAndUser(request, context)
        guard let booking = try await store.booking(id) else {
            throw APIError(Rejection(.unknownBooking, booking: id, user: user))
        }
        guard booking.user == user else { throw APIError(Rejection(.notOwner, booking: id, user: user)) }
        return JSONBody.response(.ok, booking, language: language(request))
    }

    /// `DELETE /bookings/{id}?user=`: 204 once cancelled.
    func cancel(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (id, user) = try bookingAndUser(request, context)
        _ = try await refusing { try await store.cancel(id, by: user, at: now()) }
        return Response(status: .noContent)
    }

    /// `GET /users/{user}/bookings`: the user's bookings, upcoming, fulfilled (checked in), no-show,
    /// cancelled (and displaced), and past (active and ended).
    func bookings(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let user = UserID(try HTTPInput.unsigned(try HTTPInput.path("user", context), name: "user"))
        let bookings = try await store.bookings(of: user, at: now())
        return JSONBody.response(.ok, bookings, language: language(request))
    }

    /// The booking id of the path and the `user` of the query. An id that is not one the service
    /// could have issued (not digits, too large) is an unknown booking: 404.
    private func bookingAndUser(_ request: Request, _ context: BasicRequestContext) throws(APIError)
        -> (BookingID, UserID)
    {
        let text = try HTTPInput.path("id", context)
        let user = UserID(try HTTPInput.unsigned(try HTTPInput.query(of: request)["user"], name: "user"))
        guard let id = BookingID(text) else {
            throw APIError(Rejection(.unknownBooking, user: user, value: IdentifierRule.shortened(text)))
        }
        return (id, user)
    }

    /// Runs a store call, turning a refusal into its ``APIError``.
    private func refusing<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let rejection as Rejection { throw APIError(rejection) }
    }

    private func language(_ request: Request) -> MessageLanguage {
        MessageLanguage.preferred(acceptLanguage: request.headers[.acceptLanguage])
    }
}

/// `GET /stations`' answer: the stations themselves (id, name, city, time zone, sockets, …)
/// and the paging of ``StationPage``.
struct StationList: Encodable {
    var stations: [Station]
    var page: Int
    var pageSize: Int
    var totalCount: Int
    var hasMore: Bool

    init(_ page: StationPage) {
        stations = page.stations.map(\.station)
        self.page = page.page
        pageSize = page.pageSize
        totalCount = page.totalCount
        hasMore = page.hasMore
    }
}
