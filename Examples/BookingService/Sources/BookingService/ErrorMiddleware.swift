import Hummingbird
import Logging
import SlotScheduler

/// Turns every failure into a JSON answer in the caller's language: an ``APIError`` as it says,
/// a route that does not exist as 404 (or 405 with `Allow` when the path exists for other
/// methods), a change the store did not confirm as 503 `outcomeUnknown` (with `Retry-After`),
/// and anything else as 500 (logged); a change the store did not confirm is 503
/// `outcomeUnknown`, with `Retry-After`. Nothing a request sends reaches the process
/// as an uncaught error.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let operations: [Routes.Operation]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let language = MessageLanguage.preferred(acceptLanguage: request.headers[.acceptLanguage])
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response(in: language)
        } catch let error as HTTPError where error.status == .notFound {
            return unrouted(request).response(in: language)
        } catch let error as any HTTPResponseError {
            // Hummingbird's own refusals (none of the routes throws one): keep the status.
            return APIError(
                error.status, .malformedRequest, english: "The request was refused (\(error.status.code)).",
                turkish: "İstek reddedildi (\(error.status.code))."
            ).response(in: language)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(describing: error))"])
            // A change the store did not confirm may or may not have been made: 503, retry with
            // the same key. A read that failed changed nothing.
            if request.method != .get, request.method != .head { return APIError.outcomeUnknown.response(in: language) }
            return APIError(
                .internalServerError, .internalError, english: "The request could not be completed.",
                turkish: "İstek tamamlanamadı."
            ).response(in: language)
        }
    }

    /// 405 with the methods the path allows (HEAD wherever GET is), else 404. The path's
    /// segments are read as the router reads them, empty ones skipped (`/stations/` is
    /// `/stations`), so a path the router serves to one method is a 405, not a 404, to another.
    func unrouted(_ request: Request) -> APIError {
        let segments = request.uri.path.split(separator: "/")
        let matching = operations.filter { operation in
            let pattern = operation.path.split(separator: "/")
            return pattern.count == segments.count
                && zip(pattern, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
        if !matching.isEmpty {
            let methods = matching.flatMap { $0.method == .get ? [.get, .head] : [$0.method] }
            let allowed = methods.map(\.rawValue).joined(separator: ", ")
            var error = APIError(
                .methodNotAllowed, .methodNotAllowed,
                english: "\(request.method.rawValue) is not allowed here; allowed: \(allowed).",
                turkish: "Burada \(request.method.rawValue) kullanılamaz; kullanılabilenler: \(allowed).")
            error.allow = methods
            return error
        }
        return APIError(
            .notFound, .notFound, english: "There is no such resource.", turkish: "Böyle bir kaynak yok.")
    }
}
