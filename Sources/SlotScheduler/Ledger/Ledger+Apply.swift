extension Ledger {
    /// Applies one command at `now`: the one entry every change of a ledger goes through (the
    /// named methods wrap it). A refusal is ``Outcome/refused(_:)`` and changes nothing; the
    /// outcome's ``Outcome/events(at:)`` are what the journal recorded.
    ///
    /// In debug builds the books' consistency is checked after the commands (see
    /// `checkInvariantsAmortized()`).
    public mutating func apply(_ command: Command, at now: Instant) -> Outcome {
        if case .changeCatalog(let change, let rule) = command {
            return applyCatalogChange(change, rule: rule, at: now)
        }
        let resolved: ResolvedCommand
        do throws(Rejection) { resolved = try rules.resolve(command) } catch { return .refused(error) }
        let outcome = Decisions.apply(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
        #if DEBUG
        checkInvariantsAmortized()
        #endif
        return outcome
    }
}
