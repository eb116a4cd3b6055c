import Hummingbird
import SlotScheduler

/// An error answer: an HTTP status and a `{"reason","message"}` body, in the caller's language.
///
/// Refusals by the booking rules carry the library's ``Rejection`` (its wire form adds the
/// category and the values it refers to); everything the service refuses itself (malformed
/// JSON, a bad parameter, a body too large, an unknown route) has a reason of its own.
struct APIError: Error, Sendable {
    enum Reason: String, Sendable {
        /// The body is not the JSON the operation takes (syntax, a missing field, a wrong type).
        case malformedRequest
        /// A path or query parameter that cannot be read (not a number, bad percent-encoding).
        case invalidParameter
        case bodyTooLarge
        case notFound
        case methodNotAllowed
        /// No bearer token, or one that does not verify (401, with `WWW-Authenticate`).
        case unauthenticated
        /// The client or the caller has no request left of its rate limit (429, `Retry-After`).
        case tooManyRequests
        /// An `Idempotency-Key` used before for another request, or differing from the body's
        /// `requestID` (422).
        case idempotencyKeyReused
        /// The store failed: whether the change was made is not known. Retry with the same
        /// `Idempotency-Key` or `requestID` (503, `Retry-After`).
        case outcomeUnknown
        /// An unexpected failure (a durable store that cannot write); never a refusal.
        case internalError
    }

    var status: HTTPResponse.Status
    var body: Body
    /// For 405: the methods the path does allow.
    var allow: [HTTPRequest.Method] = []
    /// For 401: the `WWW-Authenticate` challenge.
    var challenge: String?
    /// For 429: whole seconds until a request will be taken again.
    var retryAfter: Int?

    enum Body: Sendable {
        case rejection(Rejection)
        case own(Reason, english: String, turkish: String)
        case invalidValue(InvalidValue)
    }

    /// The status of a refusal: its category's (404, 422, 409, 403).
    init(_ rejection: Rejection) {
        switch rejection.reason.category {
        case .notFound: status = .notFound
        case .invalid: status = .unprocessableContent
        case .conflict: status = .conflict
        case .forbidden: status = .forbidden
        }
        body = .rejection(rejection)
    }

    /// A value the library refused as invalid (a page size out of range, a date in a path or a
    /// body that is not one): 400, naming the field.
    init(_ invalid: InvalidValue) {
        status = .badRequest
        body = .invalidValue(invalid)
    }

    init(_ status: HTTPResponse.Status, _ reason: Reason, english: String, turkish: String) {
        self.status = status
        body = .own(reason, english: english, turkish: turkish)
    }

    static func malformed(_ english: String, _ turkish: String) -> APIError {
        APIError(.badRequest, .malformedRequest, english: english, turkish: turkish)
    }

    /// 401: the request names no verified caller (``TokenProblem``).
    static func unauthenticated(_ problem: TokenProblem) -> APIError {
        var error = APIError(.unauthorized, .unauthenticated, english: problem.english, turkish: problem.turkish)
        error.challenge = problem.challenge
        return error
    }

    /// 429: `scope` (`address`, `user`) has no request left; one will be taken after `wait`.
    static func tooManyRequests(scope: String, retryAfter wait: Duration) -> APIError {
        let seconds = max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
        var error = APIError(
            .tooManyRequests, .tooManyRequests,
            english: "Too many requests from this \(scope); retry after \(seconds) s.",
            turkish:
                "Bu \(scope == "user" ? "kullanıcıdan" : "adresten") çok fazla istek geldi; \(seconds) sn sonra yeniden deneyin."
        )
        error.retryAfter = seconds
        return error
    }

    /// 422: the key of `Idempotency-Key` was used before for another request.
    static let keyReused = APIError(
        .unprocessableContent, .idempotencyKeyReused,
        english: "This Idempotency-Key was used for another request; use a new key for a new request.",
        turkish: "Bu Idempotency-Key başka bir istek için kullanıldı; yeni bir istek için yeni bir anahtar kullanın.")

    /// 422: the `Idempotency-Key` header and the body's `requestID` name two requests.
    static let keyMismatch = APIError(
        .unprocessableContent, .idempotencyKeyReused,
        english: "The Idempotency-Key header and the body's requestID differ; send one, or the same in both.",
        turkish: "Idempotency-Key başlığı ile gövdedeki requestID farklı; birini ya da ikisinde aynısını gönderin.")

    /// 503: the store failed, so the outcome of a change is not known (a write may have reached
    /// the disk before its sync failed; PostgreSQL may have committed before the connection
    /// broke). The client retries with the same key, which makes the retry the same change.
    static let outcomeUnknown: APIError = {
        var error = APIError(
            .serviceUnavailable, .outcomeUnknown,
            english:
                "The store did not confirm the change, so whether it was made is not known; retry with the same Idempotency-Key or requestID.",
            turkish:
                "Depo değişikliği onaylamadı, yapılıp yapılmadığı bilinmiyor; aynı Idempotency-Key ya da requestID ile yeniden deneyin."
        )
        error.retryAfter = 1
        return error
    }()

    /// 503: the first request with this key failed before it was answered, or (answers kept in
    /// PostgreSQL, ``SharedAnswers``) is still being answered after the repeat's wait; retry.
    static let keyInFlightFailed = outcomeUnknown

    /// 503: the database of the kept answers (``SharedAnswers``) did not answer, so whether this
    /// key's change was made is not known; retry.
    static let keptAnswersUnavailable = outcomeUnknown

    /// 400: a body names a user. The user is the bearer token's `sub`, never a field a client
    /// chooses (a gateway or a client library that still sends one learns it at once).
    static let userInBody = APIError.malformed(
        "Field user is not taken: the user is the bearer token's sub.",
        "user alanı kabul edilmez: kullanıcı, bearer token'ın sub alanıdır.")

    static func parameter(_ name: String, _ value: String) -> APIError {
        let shown = IdentifierRule.shortened(value).debugDescription
        return APIError(
            .badRequest, .invalidParameter, english: "Parameter \(name) has a value that cannot be read: \(shown).",
            turkish: "\(name) parametresinin değeri okunamıyor: \(shown).")
    }

    /// The response, with the body in `language`.
    func response(in language: MessageLanguage) -> Response {
        var response: Response
        switch body {
        case .rejection(let rejection):
            response = JSONBody.problem(status, rejection, language: language)
        case .invalidValue(let invalid):
            response = JSONBody.problem(status, OwnBody(invalid, language: language), language: language)
        case .own(let reason, let english, let turkish):
            let message = language == .turkish ? turkish : english
            response = JSONBody.problem(
                status, OwnBody(reason: reason.rawValue, message: message), language: language)
        }
        if !allow.isEmpty { response.headers[.allow] = allow.map(\.rawValue).joined(separator: ", ") }
        if let challenge { response.headers[.wwwAuthenticate] = challenge }
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        // A 413 leaves the body unread (and a client that sent `Expect: 100-continue` never sends
        // it): the next bytes are not a request, so the connection ends with this answer.
        if status == .contentTooLarge { response.headers[.connection] = "close" }
        return response
    }
}

/// The body of an error the service itself gives: a reason and a message, plus for an invalid
/// parameter the field and what was expected.
struct OwnBody: Encodable {
    var reason: String
    var message: String
    var field: String?
    var expected: String?

    init(reason: String, message: String) {
        self.reason = reason
        self.message = message
    }

    init(_ invalid: InvalidValue, language: MessageLanguage) {
        reason = APIError.Reason.invalidParameter.rawValue
        message = invalid.message(in: language)
        field = invalid.field
        expected = invalid.expected
    }
}
