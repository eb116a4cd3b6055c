extension Scenario {
    /// The same scenario with a workload of `operations` operations (`schedule-sim --operations`).
    ///
    /// A scenario's count expectations are written for its own size (rush hour expects exactly
    /// 40,000 operations and at least 20,000 `slotTaken`), so a resized workload keeps the
    /// invariants to check and drops the counts: `countsDropped` says whether there were any.
    /// Resizing to the scenario's own size changes nothing.
    ///
    /// - Throws: ``ScenarioError`` when `operations` is outside `0...ScenarioLimits.maxOperations`
    ///   or the scenario has no workload to resize.
    public func resized(operations: Int, file: String) throws(ScenarioError) -> (
        scenario: Scenario, countsDropped: Bool
    ) {
        guard (0...ScenarioLimits.maxOperations).contains(operations) else {
            throw ScenarioError(
                file: file, path: "--operations", value: String(operations),
                expected: "0...\(ScenarioLimits.maxOperations)")
        }
        guard var workload else {
            throw ScenarioError(file: file, path: "workload", value: "nothing", expected: "a workload to resize")
        }
        guard workload.operations != operations else { return (self, false) }
        workload.operations = operations
        var copy = self
        copy.workload = workload
        let countsDropped = copy.expectations?.counts?.isEmpty == false
        copy.expectations?.counts = nil
        return (copy, countsDropped)
    }
}
