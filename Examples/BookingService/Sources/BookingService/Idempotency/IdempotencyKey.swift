import HTTPTypes
import Hummingbird
import SlotScheduler

/// The `Idempotency-Key` header of a state-changing request (draft-ietf-httpapi-idempotency-key-header):
/// the client's name for one intended change, so that a retry after a timeout or a 503 is the
/// same change, never a second one.
///
/// Where the library keeps request ids (a reservation, any socket, a reschedule), the key is the
/// request id: kept by the store, across restarts and instances. For the other changes (holds,
/// confirm, release, check-in, check-out, cancel) ``IdempotencyMiddleware`` keeps the first answer.
enum IdempotencyKey {
    /// The header's key: `nil` without one; a 422 `invalidRequestID`, as for a body's
    /// `requestID`, when it is not a request id as the library takes them (1 to 128 UTF-8 bytes,
    /// no surrounding space, no control characters). The header given twice is a 400: joined,
    /// its values would make a third key (`k-X, k-Y`), neither of the client's.
    static func of(_ request: Request) throws(APIError) -> SlotScheduler.RequestID? {
        let values = request.headers[values: .idempotencyKey]
        guard values.count <= 1 else {
            throw APIError.malformed(
                "The Idempotency-Key header is given \(values.count) times; send it once.",
                "Idempotency-Key başlığı \(values.count) kez verilmiş; bir kez gönderin.")
        }
        guard let text = values.first else { return nil }
        guard IdentifierRule.isValid(text) else {
            throw APIError(Rejection(.invalidRequestID, value: IdentifierRule.shortened(text)))
        }
        return SlotScheduler.RequestID(text)
    }

    /// The request id of a body (`requestID`) and the header together: either one, or both when
    /// they agree; a 422 when they differ.
    static func merged(body: String?, request: Request) throws(APIError) -> SlotScheduler.RequestID? {
        let header = try of(request)
        guard let body else { return header }
        guard let header, !IdentifierRule.same(header.rawValue, body) else { return SlotScheduler.RequestID(body) }
        throw APIError.keyMismatch
    }
}

extension HTTPField.Name {
    /// `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header).
    // swift-format-ignore: NeverForceUnwrap
    // A literal token: the initializer refuses only names that are not tokens.
    static let idempotencyKey = Self("Idempotency-Key")!
}
