#if Observability  // built with `--traits Observability` only (Package.swift)
import SlotScheduler

/// How a store call ended, as metrics, traces and logs name it.
///
/// Every call ends in one of four ways, so that a dashboard can tell a busy slot from a broken
/// store: the change was made (`accepted`), an earlier identical request was found and its
/// result returned (`replayed`), the rules refused it with a reason (`refused`, the reason in
/// ``reason``), or the store could not answer (`failed`, the error's type in ``reason``: with a
/// durable store, the change may or may not be made).
public struct CallOutcome: Sendable, Hashable {
    /// `accepted`, `replayed`, `refused` or `failed`.
    public let name: String
    /// The refusal's reason (`Rejection.Reason`'s raw value) for `refused`, the error's type for
    /// `failed`, else `none`.
    public let reason: String

    public static let accepted = CallOutcome(name: "accepted", reason: "none")
    public static let replayed = CallOutcome(name: "replayed", reason: "none")

    /// The outcome of a call that threw `error`.
    public init(error: any Error) {
        if let rejection = error as? Rejection {
            self.init(name: "refused", reason: rejection.reason.rawValue)
        } else {
            self.init(name: "failed", reason: String(describing: type(of: error)))
        }
    }

    private init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
}
#endif
