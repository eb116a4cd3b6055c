import HTTPTypes
import Hummingbird
import SlotScheduler
import Synchronization

/// Keeps the first answer to each `Idempotency-Key` of a caller, for the changes whose store keeps
/// no request id (holds, confirm, release, check-in, check-out, cancel), and answers a repeat
/// with it (draft-ietf-httpapi-idempotency-key-header):
/// - the same key with another request (method, path or body) is a 422 (`idempotencyKeyReused`);
/// - a repeat while the first is still being answered waits for it and gets its answer;
/// - an answer of 5xx is not kept (its outcome is unknown): the repeat runs again;
/// - a kept answer is sent with `Idempotent-Replayed: true`.
///
/// Where the answers are kept is the store's business (``AnswerKeeper``): in this process
/// (``KeptAnswers``) for memory and a journal, one instance; in the database (``SharedAnswers``)
/// for PostgreSQL, so a repeat may reach any instance. The changes whose store keeps request ids
/// (``IdempotencyKey``) need neither.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = ServiceContext

    /// The routes (`context.endpointPath`) whose key is the store's request id.
    let durable: Set<String>
    let answers: any AnswerKeeper

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard request.method != .get, request.method != .head, let key = try IdempotencyKey.of(request),
            !durable.contains(context.endpointPath ?? "")
        else { return try await next(request, context) }
        let user = try context.caller().user
        // The body is read here, whole (it is at most 16 KiB), to tell a repeat from another request.
        let body = try await HTTPInput.body(of: request)
        var request = request
        request.body = RequestBody(buffer: body)
        let keyed = KeyedRequest(
            key: KeyedRequest.Key(user: user.rawValue, key: key.rawValue),
            fingerprint: KeyedRequest.Fingerprint(
                method: request.method.rawValue, path: request.uri.path, body: Array(body.readableBytesView)))
        switch try await answers.claim(keyed) {
        case .reused:
            throw APIError.keyReused
        case .kept(let response):
            var response = response
            response.headers[.idempotentReplayed] = "true"
            return response
        case .first(let first):
            let language = MessageLanguage.preferred(acceptLanguage: request.headers[.acceptLanguage])
            let response: Response
            do { response = try await next(request, context) } catch let error as APIError {
                response = error.response(in: language)
            } catch {
                await first.forget()
                throw error
            }
            guard response.status.code < 500 else {
                await first.forget()
                return response
            }
            return await first.keep(response)
        }
    }
}

/// A request with an `Idempotency-Key`: whose key, and what was asked (to tell a repeat from
/// another request with the same key).
struct KeyedRequest: Sendable {
    struct Key: Hashable, Sendable {
        var user: UInt64
        var key: String
    }

    struct Fingerprint: Equatable, Sendable {
        var method: String
        var path: String
        var body: [UInt8]
    }

    var key: Key
    var fingerprint: Fingerprint
}

/// Where ``IdempotencyMiddleware`` keeps the first answer to each key, and how a repeat finds it.
protocol AnswerKeeper: Sendable {
    /// What `request` finds. A repeat whose first request is still being answered waits for
    /// its answer (`.kept`); when the first is answered with a 5xx or fails, or the keeper cannot
    /// tell (its wait ran out, its database does not answer), a 503 `outcomeUnknown` with
    /// `Retry-After`: the client repeats it with the same key.
    func claim(_ request: KeyedRequest) async throws(APIError) -> AnswerClaim
}

/// What a request with a key finds (``AnswerKeeper/claim(_:)``).
enum AnswerClaim: Sendable {
    /// The key was used for another request.
    case reused
    /// The first request's answer.
    case kept(Response)
    /// None yet: this request is the first, and answers through `FirstAnswer`.
    case first(FirstAnswer)
}

/// The first request with a key: its answer is kept, or the key forgotten.
struct FirstAnswer: Sendable {
    /// Keeps the answer (not a 5xx) for the repeats; returns the response to send (the same
    /// answer, its body possibly read into memory to be kept).
    let keep: @Sendable (Response) async -> Response
    /// Forgets the key (the answer was a 5xx, or none): a repeat runs again.
    let forget: @Sendable () async -> Void
}

/// The kept answers of one process (memory and journal stores: one instance), behind a lock:
/// each for ``lifetime``, at most ``capacity`` of them (the oldest go first). A repeat waiting for
/// the first request's answer waits as long as it takes (the first runs in this process).
final class KeptAnswers: AnswerKeeper {
    typealias Key = KeyedRequest.Key
    typealias Fingerprint = KeyedRequest.Fingerprint

    private enum Entry {
        case inFlight(Fingerprint, [CheckedContinuation<Response?, Never>])
        case kept(Fingerprint, Response, ContinuousClock.Instant)
    }

    /// What the lock's holder found.
    private enum Found {
        case reused
        case kept(Response)
        case inFlight
        case first
    }

    let lifetime: Duration
    let capacity: Int
    private let state = Mutex<(entries: [Key: Entry], order: [Key])>(([:], []))

    init(lifetime: Duration = .seconds(24 * 3_600), capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func claim(_ request: KeyedRequest) async throws(APIError) -> AnswerClaim {
        let (key, fingerprint) = (request.key, request.fingerprint)
        let now = ContinuousClock.now
        let found = state.withLock { state -> Found in
            switch state.entries[key] {
            case .kept(let first, let response, let at) where now - at < lifetime:
                return first == fingerprint ? .kept(response) : .reused
            case .inFlight(let first, _):
                return first == fingerprint ? .inFlight : .reused
            default:
                state.entries[key] = .inFlight(fingerprint, [])
                state.order.append(key)
                return .first
            }
        }
        switch found {
        case .reused: return .reused
        case .kept(let response): return .kept(response)
        case .inFlight: return .kept(try await wait(key))
        case .first:
            return .first(
                FirstAnswer(
                    keep: { response in
                        self.finish(key, response)
                        return response
                    }, forget: { self.finish(key, nil) }))
        }
    }

    /// The answer of `key`'s first request, once it is kept; when it is not (a 5xx), the
    /// repeat is a 503 to retry.
    private func wait(_ key: Key) async throws(APIError) -> Response {
        let answer: Response? = await withCheckedContinuation { continuation in
            // The first request may have finished since the claim: then its answer is kept (or not).
            let finished = state.withLock { state -> Response?? in
                switch state.entries[key] {
                case .inFlight(let first, var waiting):
                    waiting.append(continuation)
                    state.entries[key] = .inFlight(first, waiting)
                    return .none
                case .kept(_, let response, _): return .some(response)
                case nil: return .some(nil)
                }
            }
            if let finished { continuation.resume(returning: finished) }
        }
        guard let answer else { throw APIError.keyInFlightFailed }
        return answer
    }

    private func finish(_ key: Key, _ response: Response?) {
        let waiting = state.withLock { state -> [CheckedContinuation<Response?, Never>] in
            guard case .inFlight(let first, let waiting) = state.entries[key] else { return [] }
            if let response {
                state.entries[key] = .kept(first, response, .now)
            } else {
                state.entries[key] = nil
            }
            evict(&state)
            return waiting
        }
        for continuation in waiting { continuation.resume(returning: response) }
    }

    /// Forgets the oldest keys beyond ``capacity``, and keys whose answer outlived ``lifetime``.
    private func evict(_ state: inout (entries: [Key: Entry], order: [Key])) {
        let now = ContinuousClock.now
        var dropped = 0
        for key in state.order {
            guard state.entries.count > capacity || isStale(state.entries[key], now) || state.entries[key] == nil
            else { break }
            if case .inFlight = state.entries[key] { break }
            state.entries[key] = nil
            dropped += 1
        }
        if dropped > 0 { state.order.removeFirst(dropped) }
    }

    private func isStale(_ entry: Entry?, _ now: ContinuousClock.Instant) -> Bool {
        if case .kept(_, _, let at) = entry { return now - at >= lifetime }
        return false
    }
}

extension HTTPField.Name {
    /// Says that an answer is the kept answer of an earlier request with the same key.
    // swift-format-ignore: NeverForceUnwrap
    // A literal token: the initializer refuses only names that are not tokens.
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
