import HTTPTypes
import Hummingbird
import SlotScheduler
import Synchronization

/// Keeps the first answer to each `Idempotency-Key` of a caller, for the changes whose store keeps
/// no request id (holds, confirm, release, check-in, check-out, cancel), and answers a repeat
/// with it (draft-ietf-httpapi-idempotency-key-header):
/// - the same key with another request (method, path or body) is a 422 (`idempotencyKeyReused`);
/// - a repeat while the first is still being answered waits for it and gets its answer;
/// - an answer of 5xx is not kept (its outcome is unknown): the repeat runs again.
///
/// Answers are kept in this process for ``lifetime``, at most ``capacity`` of them (the oldest
/// go first), so a repeat must reach the same instance within that time; the changes whose store
/// keeps request ids (``IdempotencyKey``) need neither.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = ServiceContext

    /// The routes (`context.endpointPath`) whose key is the store's request id.
    let durable: Set<String>
    let answers: KeptAnswers

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
        let fingerprint = KeptAnswers.Fingerprint(
            method: request.method.rawValue, path: request.uri.path, body: Array(body.readableBytesView))
        let slot = KeptAnswers.Key(user: user.rawValue, key: key.rawValue)
        switch answers.claim(slot, fingerprint) {
        case .reused:
            throw APIError.keyReused
        case .kept(let response):
            var response = response
            response.headers[.idempotentReplayed] = "true"
            return response
        case .inFlight(let wait):
            return try await wait.value
        case .first(let finish):
            let language = MessageLanguage.preferred(acceptLanguage: request.headers[.acceptLanguage])
            let response: Response
            do { response = try await next(request, context) } catch let error as APIError {
                response = error.response(in: language)
            } catch {
                finish(nil)
                throw error
            }
            finish(response.status.code < 500 ? response : nil)
            return response
        }
    }
}

/// The kept answers of ``IdempotencyMiddleware``, behind a lock.
final class KeptAnswers: Sendable {
    struct Key: Hashable, Sendable {
        var user: UInt64
        var key: String
    }

    struct Fingerprint: Equatable, Sendable {
        var method: String
        var path: String
        var body: [UInt8]
    }

    /// What a request with a key finds.
    enum Claim {
        /// The key was used for another request.
        case reused
        /// The first request's answer.
        case kept(Response)
        /// The first request is being answered: its answer, once there.
        case inFlight(Task<Response, any Error>)
        /// None yet: this request is the first; `finish` keeps its answer (or, with `nil`,
        /// forgets the key).
        case first(finish: @Sendable (Response?) -> Void)
    }

    private enum Entry {
        case inFlight(Fingerprint, [CheckedContinuation<Response?, Never>])
        case kept(Fingerprint, Response, ContinuousClock.Instant)
    }

    let lifetime: Duration
    let capacity: Int
    private let state = Mutex<(entries: [Key: Entry], order: [Key])>(([:], []))

    init(lifetime: Duration = .seconds(24 * 3_600), capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func claim(_ key: Key, _ fingerprint: Fingerprint) -> Claim {
        let now = ContinuousClock.now
        return state.withLock { state -> Claim in
            switch state.entries[key] {
            case .kept(let first, let response, let at) where now - at < lifetime:
                return first == fingerprint ? .kept(response) : .reused
            case .inFlight(let first, _):
                guard first == fingerprint else { return .reused }
                return .inFlight(Task { try await self.wait(key) })
            default:
                state.entries[key] = .inFlight(fingerprint, [])
                state.order.append(key)
                return .first(finish: { self.finish(key, $0) })
            }
        }
    }

    /// The answer of `key`'s first request, once it is kept; when it is not (a 5xx), the
    /// repeat is refused as a conflict to retry.
    private func wait(_ key: Key) async throws -> Response {
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
