import Foundation
import Hummingbird
import Prometheus
import SlotScheduler
import SlotSchedulerOCPP

/// The HTTP contract (openapi.yaml): each handler reads its input, calls the store, and answers
/// JSON. Every failure is an ``APIError``; the ``ErrorMiddleware`` turns it into a response.
struct Routes: Sendable {
    let store: ServiceStore
    /// The OpenAPI document, served as it is on disk.
    let openAPI: Data
    /// What `GET /metrics` exposes: the HTTP server's (Hummingbird's `MetricsMiddleware`) and the
    /// store's (`ObservedBookingService`, and the store's own counters). `nil` with
    /// `--metrics off`: no `/metrics`, and no `MetricsMiddleware`.
    let metrics: PrometheusCollectorRegistry?
    /// With `--ocpp`: what each booking's charger was told (`GET /bookings/{id}`'s `charger`).
    var chargerBridge: ChargerBridge?
    /// The clock, read at the edge only: the library never reads one.
    var now: @Sendable () -> Instant = { Instant(Date()) }

    /// One operation of the contract: its path (`:name` segments are parameters), its method,
    /// who may call it (``Access``) and its handler. The router and the 405 answers
    /// (``ErrorMiddleware``) both read this list.
    struct Operation: Sendable {
        var path: String
        var method: HTTPRequest.Method
        var access = Access.user
        var handle: @Sendable (Request, ServiceContext) async throws -> Response
    }

    /// Who may call an operation, and which limits it counts against.
    enum Access: Sendable {
        /// A probe or a scrape (health, metrics): anyone, unlimited.
        case probe
        /// Anyone, within the client address's rate limit (the catalog, day views).
        case anyone
        /// A verified caller (``BearerTokenAuthenticator``: no token, no call), within the
        /// address's and the caller's rate limits.
        case user
    }

    /// The rate limits (``TokenBuckets``): per client address, and per verified caller.
    struct Limits: Sendable {
        var address: RateLimit
        var user: RateLimit
    }

    var operations: [Operation] {
        [
            Operation(path: "/stations", method: .get, access: .anyone) { request, _ in try stations(request) },
            Operation(path: "/stations/:station/days/:date", method: .get, access: .anyone) {
                try await day($0, $1)
            },
            Operation(path: "/reservations", method: .post) { try await reserve($0, $1) },
            Operation(path: "/reservations/any-socket", method: .post) { try await reserveAny($0, $1) },
            Operation(path: "/holds", method: .post) { try await hold($0, $1) },
            Operation(path: "/holds/confirm", method: .post) { try await confirm($0, $1) },
            Operation(path: "/holds/release", method: .post) { try await release($0, $1) },
            Operation(path: "/bookings/:id/reschedule", method: .post) { try await reschedule($0, $1) },
            Operation(path: "/bookings/:id/check-in", method: .post) { try await checkIn($0, $1) },
            Operation(path: "/bookings/:id/check-out", method: .post) { try await checkOut($0, $1) },
            Operation(path: "/bookings/:id", method: .get) { try await booking($0, $1) },
            Operation(path: "/bookings/:id", method: .delete) { try await cancel($0, $1) },
            Operation(path: "/me/bookings", method: .get) { try await myBookings($0, $1) },
            Operation(path: "/health/live", method: .get, access: .probe) { _, _ in Self.health(.ok, "live") },
            Operation(path: "/health/ready", method: .get, access: .probe) { _, _ in
                guard let reason = await store.notReadyBecause() else { return Self.health(.ok, "ready") }
                return Self.health(.serviceUnavailable, "not ready", reason: reason)
            },
        ] + (metrics.map { [Self.metricsOperation($0)] } ?? []) + [
            Operation(path: "/openapi.yaml", method: .get, access: .anyone) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/yaml"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: openAPI)))
            }
        ]
    }

    /// `GET /metrics`: what `registry` counted, in Prometheus's text format.
    static func metricsOperation(_ registry: PrometheusCollectorRegistry) -> Operation {
        Operation(path: "/metrics", method: .get, access: .probe) { _, _ in
            var text: [UInt8] = []
            registry.emit(into: &text)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
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

    /// The routes whose `Idempotency-Key` is the store's request id (``IdempotencyKey``).
    static let keyedByTheStore: Set<String> = [
        "/reservations", "/reservations/any-socket", "/bookings/{id}/reschedule",
    ]

    /// The routes, each behind what its ``Access`` asks: the address's limit, `authenticator`,
    /// the caller's limit.
    func router(authenticator: BearerTokenAuthenticator, limits: Limits) -> Router<ServiceContext> {
        let router = Router(context: ServiceContext.self, options: .autoGenerateHeadEndpoints)
        let operations = operations
        // Outermost: requests by route, method and status, and their durations, as answered.
        if metrics != nil { router.add(middleware: MetricsMiddleware()) }
        // A span per request (the W3C traceparent of the caller continued); the store's calls are
        // spans under it. Exported with --otlp-endpoint, else dropped by the no-op tracer.
        router.add(middleware: TracingMiddleware())
        router.add(middleware: ErrorMiddleware(operations: operations))
        let perAddress = RateLimitMiddleware.perAddress(limits.address)
        let anyone = router.group().add(middleware: perAddress)
        let personal = router.group().add(middleware: perAddress).add(middleware: authenticator)
            .add(middleware: RateLimitMiddleware.perUser(limits.user))
            .add(middleware: IdempotencyMiddleware(durable: Self.keyedByTheStore, answers: store.answers))
        for operation in operations {
            let path = RouterPath(operation.path)
            switch operation.access {
            case .probe: router.on(path, method: operation.method, use: operation.handle)
            case .anyone: anyone.on(path, method: operation.method, use: operation.handle)
            case .user: personal.on(path, method: operation.method, use: operation.handle)
            }
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
        do { page = try store.service.rules.catalog.search(search) } catch { throw APIError(error) }
        return JSONBody.response(.ok, StationList(page), language: language(request))
    }

    /// `GET /stations/{station}/days/{date}`: the day view; 404 for a station the catalog lacks.
    func day(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let station = StationID(try HTTPInput.path("station", context))
        let text = try HTTPInput.path("date", context)
        let date: LocalDate
        do { date = try LocalDate(parsing: text) } catch { throw APIError(error) }
        do {
            let view = try await store.service.dayView(of: station, on: date, at: now())
            return JSONBody.response(.ok, view, language: language(request))
        } catch let rejection as Rejection {
            var error = APIError(rejection)
            if rejection.reason == .unknownStation { error.status = .notFound }
            throw error
        }
    }

    /// `POST /reservations`: 201 with the caller's new booking, 200 with the one an earlier
    /// request of theirs with the same `requestID` made.
    func reserve(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        var body = try ReservationBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        body.requestID = try IdempotencyKey.merged(body: body.requestID, request: request)?.rawValue
        let reservation = try await refusing(keyed: request) {
            try await store.service.book(body.request(for: user), at: now())
        }
        return JSONBody.response(
            reservation.isReplay ? .ok : .created, reservation.booking, language: language(request))
    }

    /// `POST /reservations/any-socket`: the first free matching socket of the station (catalog
    /// order); 201 with a new booking, 200 for a replayed `requestID`.
    func reserveAny(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        var body = try AnySocketBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        body.requestID = try IdempotencyKey.merged(body: body.requestID, request: request)?.rawValue
        let reservation = try await refusing(keyed: request) {
            try await store.service.book(body.request(for: user), at: now())
        }
        return JSONBody.response(
            reservation.isReplay ? .ok : .created, reservation.booking, language: language(request))
    }

    /// `POST /holds`: 201 with the hold; the slot is the caller's until its `expiresAt`.
    func hold(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let hold = try await refusing {
            try await store.service.hold(body.slot(), for: user, reminder: body.reminder, at: now())
        }
        return JSONBody.response(.created, hold, language: language(request))
    }

    /// `POST /holds/confirm`: 200 with the booking the caller's live hold became (a repeat
    /// answers the same booking).
    func confirm(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let booking = try await refusing { try await store.service.confirm(body.slot(), by: user, at: now()) }
        return JSONBody.response(.ok, booking, language: language(request))
    }

    /// `POST /holds/release`: 200 with the released hold; the slot is free at once.
    func release(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let hold = try await refusing { try await store.service.releaseHold(body.slot(), by: user, at: now()) }
        return JSONBody.response(.ok, hold, language: language(request))
    }

    /// `POST /bookings/{id}/reschedule`: 200 with the caller's booking at its new slot (or, for
    /// a replayed `requestID`, as it is now). Another user's booking, or an id the service could
    /// not have issued, is unknown: 404.
    func reschedule(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        let text = try HTTPInput.path("id", context)
        let body = try SlotBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let slot = try body.slot()
        let requestID = try IdempotencyKey.merged(body: body.requestID, request: request)
        let issued = HTTPInput.bookingID(text)
        let missing = Rejection(
            .unknownBooking, slot: slot, booking: issued, user: user, requestID: requestID,
            value: issued == nil ? IdentifierRule.shortened(text) : nil)
        guard let id = issued else { throw APIError(missing) }
        let move = RescheduleRequest(booking: id, user: user, to: slot, requestID: requestID)
        let reservation = try await refusing(missing: missing, keyed: request) {
            try await store.service.reschedule(move, at: now())
        }
        return JSONBody.response(.ok, reservation.booking, language: language(request))
    }

    /// `POST /bookings/{id}/check-in`: 200 with the caller's booking checked in (`checkedInAt`),
    /// from its start − the policy's early check-in until its start + the no-show grace; a repeat
    /// answers the booking as the first check-in left it. A socket with an access code needs
    /// it in the body (`{"accessCode": "…"}`; 422 `wrongAccessCode` otherwise, never saying the
    /// right one). Another user's booking, or an id the service could not have issued, is
    /// unknown: 404.
    func checkIn(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (id, user, missing) = try bookingOfCaller(context)
        let body = try CheckInBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let booking = try await refusing(missing: missing) {
            try await store.service.checkIn(id, by: user, accessCode: body.accessCode, at: now())
        }
        return JSONBody.response(.ok, booking, language: language(request))
    }

    /// `POST /bookings/{id}/check-out`: 200 with the caller's checked-in booking ended
    /// (`fulfilled`, `checkedOutAt`): its slot and its place in the caller's limit are free at
    /// once. 409 `notCheckedIn`, `alreadyCheckedOut`, `alreadyCancelled`. Another user's
    /// booking, or an id the service could not have issued, is unknown: 404. With `leftAt`, the
    /// booking's station then moves there (a catalog change: `GET /stations?near=` finds it there).
    func checkOut(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (id, user, missing) = try bookingOfCaller(context)
        let body = try CheckOutBody.decode(Data(try await HTTPInput.body(of: request).readableBytesView))
        let booking = try await refusing(missing: missing) {
            guard let place = body.leftAt else { return try await store.service.checkOut(id, by: user, at: now()) }
            return try await store.service.checkOut(id, by: user, leftAt: place, at: now())
        }
        return JSONBody.response(.ok, booking, language: language(request))
    }

    /// `GET /bookings/{id}`: the caller's booking in its current status, with its charger's
    /// reservation when the bridge has one (`--ocpp`); 404 for another user's, exactly as for
    /// one that does not exist.
    func booking(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (id, user, missing) = try bookingOfCaller(context)
        guard let booking = try await store.service.booking(id), booking.user == user else { throw APIError(missing) }
        let charger = await chargerBridge?.reservation(of: id)
        return JSONBody.response(
            .ok, BookingWithCharger(booking: booking, charger: charger), language: language(request))
    }

    /// `DELETE /bookings/{id}`: 204 once the caller's booking is cancelled; 404 for another
    /// user's.
    func cancel(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let (id, user, missing) = try bookingOfCaller(context)
        _ = try await refusing(missing: missing) { try await store.service.cancel(id, by: user, at: now()) }
        return Response(status: .noContent)
    }

    /// `GET /me/bookings?state=&page=&pageSize=`: one page of the caller's bookings (``MyBookings``).
    func myBookings(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let user = try context.caller().user
        let query = try HTTPInput.query(of: request)
        var state: MyBookings.State?
        if let text = query["state"] {
            guard let known = MyBookings.State(rawValue: text) else { throw APIError.parameter("state", text) }
            state = known
        }
        let page = try HTTPInput.integer(query["page"], name: "page", default: 0)
        let pageSize = try HTTPInput.integer(query["pageSize"], name: "pageSize", default: 50)
        guard page >= 0 else { throw APIError.parameter("page", String(page)) }
        guard MyBookings.pageSizes.contains(pageSize) else { throw APIError.parameter("pageSize", String(pageSize)) }
        let split = try await store.service.bookings(of: user, at: now())
        return JSONBody.response(
            .ok, MyBookings(split, state: state, page: page, pageSize: pageSize), language: language(request))
    }

    /// The booking id of the path, the caller, and the refusal for a booking the caller does not
    /// have (missing, or another user's: the same answer). An id that is not one the service
    /// could have issued (not digits, too large, a leading zero) is such a booking: 404.
    private func bookingOfCaller(_ context: ServiceContext) throws(APIError) -> (BookingID, UserID, Rejection) {
        let user = try context.caller().user
        let text = try HTTPInput.path("id", context)
        guard let id = HTTPInput.bookingID(text) else {
            throw APIError(Rejection(.unknownBooking, user: user, value: IdentifierRule.shortened(text)))
        }
        return (id, user, Rejection(.unknownBooking, booking: id, user: user))
    }

    /// Runs a store call, turning a refusal into its ``APIError``; a refusal because the booking
    /// is another user's becomes `missing`, the answer for a booking that does not exist, so
    /// that ids cannot be probed. A request id used before for another request is a 422
    /// `idempotencyKeyReused` when it came as the `Idempotency-Key` of `keyed`.
    private func refusing<T>(missing: Rejection? = nil, keyed: Request? = nil, _ body: () async throws -> T)
        async throws -> T
    {
        do { return try await body() } catch let rejection as Rejection {
            if rejection.reason == .notOwner, let missing { throw APIError(missing) }
            if rejection.reason == .conflictingRequestID, keyed?.headers[.idempotencyKey] != nil {
                throw APIError.keyReused
            }
            throw APIError(rejection)
        }
    }

    private func language(_ request: Request) -> MessageLanguage {
        MessageLanguage.preferred(acceptLanguage: request.headers[.acceptLanguage])
    }
}

/// `GET /stations`' answer: the stations themselves (id, name, city, time zone, sockets, …) as
/// clients may see them (``Station/shown``) and the paging of ``StationPage``.
struct StationList: Encodable {
    var stations: [Station]
    var page: Int
    var pageSize: Int
    var totalCount: Int
    var hasMore: Bool

    init(_ page: StationPage) {
        stations = page.stations.map(\.station.shown)
        self.page = page.page
        pageSize = page.pageSize
        totalCount = page.totalCount
        hasMore = page.hasMore
    }
}

extension Station {
    /// The station as API clients see it: without its sockets' access codes (a code is what a
    /// check-in at the socket must present, so only the socket itself shows it). Every answer
    /// that carries a station or a socket goes through this.
    var shown: Station {
        var station = self
        station.sockets = sockets.map { socket in
            var socket = socket
            socket.accessCode = nil
            return socket
        }
        return station
    }
}
