import ArgumentParser
import Dispatch
import Foundation
import SlotScheduler
import SlotSimulation

extension ScheduleSim {
    /// `schedule-sim catalog apply`: a new station list put in service on a store, with what it
    /// changed and displaced.
    struct CatalogCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalog", abstract: "Change a store's station catalog while it holds bookings.",
            subcommands: [Apply.self])

        struct Apply: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Put a new station list in service and print what changed and each booking displaced.",
                discussion: """
                    CATALOG is a JSON array of stations, or an object whose `stations` key holds one (a \
                    scenario file is one), in the scenario format. Stations and sockets it adds become \
                    bookable; those it leaves out are retired: their bookings not yet started are displaced \
                    (as are bookings in hours new regular hours close), past ones stay history. A station \
                    holding bookings keeps its time zone. The store keeps the new catalog: it reopens with it \
                    whatever catalog it is given. Exit codes: 0 applied, 1 refused (nothing changed), 64 \
                    usage error, 65 CATALOG or the scenario is invalid, 69 the store cannot be opened.

                    Example:
                      schedule-sim catalog apply stations-2026-12.json --store journal:/var/lib/bookings \\
                        --scenario Scenarios/rush-hour.json --at 2026-12-01T03:00:00Z
                    """)

            @Argument(help: "The station list to put in service.")
            var catalog: String

            @Option(help: "The store: journal:DIR, a postgres:// URL or env (SLOTSCHEDULER_DATABASE_URL).")
            var store: String

            @Option(help: "The scenario the store was created with: its policy, and its stations until a change.")
            var scenario: String

            @Flag(help: "Refuse the change, changing nothing, if it would displace a booking.")
            var refuseIfBooked = false

            @Option(help: "The instant of the change (ISO 8601, UTC); now by default.")
            var at: String?

            @Option(
                help: """
                    Write the change as a history file (JSON lines) for verify-store, with the runs' \
                    histories: the bookings it displaced, after their operations.
                    """)
            var history: String?

            func validate() throws {
                _ = try StoreChoice(store)
                if let at, Instant(iso8601: at) == nil {
                    throw ValidationError("--at \(at): expected an instant like 2026-12-01T03:00:00Z")
                }
            }

            func run() async throws {
                try checkOutputs([(history, .history)], inputs: [catalog, scenario], store: store)
                let stations = try Self.stations(at: catalog)
                let prepared = try load(scenario)
                let now =
                    at.flatMap(Instant.init(iso8601:))
                    ?? Instant(secondsSinceEpoch: Int64(Date().timeIntervalSince1970))
                let change = CatalogChange(stations: stations)
                let rule: DisplacementRule = refuseIfBooked ? .refuse : .displace
                let opened = try await openStore(store, rules: prepared.rules)
                let outcome = await Self.result {
                    try await opened.service.changeCatalog(change, onBookings: rule, at: now)
                }
                await opened.close()
                switch outcome {
                case .success(let result):
                    Self.print(result)
                    if let history { try writeAtomically(Self.history(of: result, at: now), to: history, as: .history) }
                case .failure(let rejection as Rejection):
                    FileHandle.standardError.write(Data("refused: \(rejection)\n".utf8))
                    throw ExitCode(1)
                case .failure(let error): throw StoreFailure("the store failed: \(error)").exit()
                }
            }

            /// `body`'s value or error, so that the store is closed either way.
            static func result<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
                do { return .success(try await body()) } catch { return .failure(error) }
            }

            /// The stations of a catalog file: an array, or an object's `stations` (exit 65 if neither).
            static func stations(at path: String) throws -> [Station] {
                struct Listed: Decodable { var stations: [Station] }
                let data: Data
                do { data = try InputFile.contents(path, maxBytes: ScenarioLimits.maxFileBytes) } catch {
                    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                    throw ExitCode(66)
                }
                if let list = try? JSONDecoder().decode([Station].self, from: data) { return list }
                do { return try JSONDecoder().decode(Listed.self, from: data).stations } catch {
                    FileHandle.standardError.write(
                        Data(
                            "error: \(path) is not a station list (an array, or an object with stations): \(error)\n"
                                .utf8))
                    throw ExitCode(65)
                }
            }

            /// The change as a threads-mode history: one operation (a change of process -1, as
            /// scripted steps are) that displaced `result.displaced`, timed on the machine's
            /// monotonic clock, the one histories of several processes share, so after every run
            /// that finished before it.
            static func history(of result: CatalogChangeResult, at now: Instant) -> Data {
                var line = HistoryLine(op: "changeAvailability", user: 0)
                line.process = -1
                line.index = 0
                line.now = now.secondsSinceEpoch
                line.detail = "catalog revision \(result.revision)"
                line.type = "invoke"
                line.time = Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds)
                var done = line
                done.type = "ok"
                done.time = Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds)
                done.displaced = result.displaced.map(\.id.rawValue)
                return Data((line.text + "\n" + done.text + "\n").utf8)
            }

            static func print(_ result: CatalogChangeResult) {
                let d = result.difference
                Swift.print("catalog revision \(result.revision)")
                for (name, list) in [
                    ("stations added", d.addedStations.map(\.rawValue)),
                    ("stations retired", d.retiredStations.map(\.rawValue)),
                    ("stations changed", d.changedStations.map(\.rawValue)),
                    ("sockets added", d.addedSockets.map(\.description)),
                    ("sockets retired", d.retiredSockets.map(\.description)),
                ] where !list.isEmpty {
                    Swift.print("\(name): \(list.joined(separator: ", "))")
                }
                Swift.print("displaced \(result.displaced.count) bookings")
                for booking in result.displaced {
                    Swift.print("  booking \(booking.id) user \(booking.user) \(booking.slot)")
                }
                for hold in result.droppedHolds { Swift.print("  hold dropped: user \(hold.user) \(hold.slot)") }
            }
        }
    }
}
