import SlotScheduler

/// I21's rule for one station's moves (check-outs that left its vehicle somewhere), shared by
/// threads mode (`ThreadsAnalysis.checkPlaces`) and the checks of a run against an API
/// (`SafetyCheck.checkPlaces`): after the run the station is where a move that may have been the
/// last left it. A move may be the last unless an accepted move began after it returned; accepted
/// moves and moves of unknown outcome are candidates, refused ones are not passed in.
enum LastMove {
    struct Move {
        /// When the move was sent and when its answer came, on one clock.
        var start: Int64
        var end: Int64
        /// Answered as made (else its outcome is unknown).
        var accepted: Bool
        var place: Coordinate?
    }

    /// The places a move that may have been the last left the station at; `nil` when no move was
    /// accepted, so there is nothing to judge.
    static func candidates(_ moves: [Move]) -> [Coordinate?]? {
        guard let lastStart = moves.filter(\.accepted).map(\.start).max() else { return nil }
        return moves.filter { $0.end >= lastStart }.map(\.place)
    }
}
