/// The invariants of `INVARIANTS.md` the simulator checks, named the same way everywhere.
public enum Invariant: String, CaseIterable, Codable, Sendable, Comparable {
    case I1, I2, I3, I4, I5, I6, I9, I10, I11, I12, I13, I14, I15, I16, I17, I18, I19, I20, I21

    public var name: String {
        switch self {
        case .I1: "noDoubleBooking"
        case .I2: "userLimit"
        case .I3: "noPastBooking/withinHorizon"
        case .I4: "respectsAvailability"
        case .I5: "rejectionChangesNothing"
        case .I6: "cancelFreesSlot"
        case .I9: "noSilentLoss"
        case .I10: "matchesModel"
        case .I11: "linearizable"
        case .I12: "idempotent"
        case .I13: "anySocketNeverShares"
        case .I14: "rescheduleNeverHalfDone"
        case .I15: "holdExclusive"
        case .I16: "holdExpires"
        case .I17: "holdsWithinLimit"
        case .I18: "checkInWindow"
        case .I19: "noShowLimit"
        case .I20: "noBookingOnAFault"
        case .I21: "checkOutEndsSession"
        }
    }

    public static func < (a: Self, b: Self) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}
