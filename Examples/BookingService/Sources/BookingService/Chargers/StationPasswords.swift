import Foundation
import SlotScheduler

/// The Basic auth password of each station that may connect (`--ocpp-passwords FILE`, OCPP
/// 2.0.1 security profile 1): the username is the station id, the password the file's.
struct StationPasswords: Sendable {
    private let passwords: [StationID: [UInt8]]

    /// Reads `{"STATION_ID": "PASSWORD", …}` from `path`; every station must be in `catalog`
    /// and every password 1 to 128 UTF-8 bytes (a typo would otherwise lock a station out
    /// without a word).
    static func load(path: String, catalog: Catalog) throws(ChargerSetupError) -> StationPasswords {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ChargerSetupError("--ocpp-passwords \(path): cannot read the file")
        }
        let entries: [String: String]
        do { entries = try JSONDecoder().decode([String: String].self, from: data) } catch {
            throw ChargerSetupError(
                "--ocpp-passwords \(path): not a JSON object of strings (station id → password): \(error)")
        }
        var passwords: [StationID: [UInt8]] = [:]
        for (station, password) in entries.sorted(by: { $0.key < $1.key }) {
            guard catalog.station(StationID(station)) != nil else {
                throw ChargerSetupError(
                    "--ocpp-passwords \(path): station \(station.debugDescription) is not in the scenario")
            }
            guard (1...128).contains(password.utf8.count) else {
                throw ChargerSetupError("--ocpp-passwords \(path): the password of \(station) must be 1 to 128 bytes")
            }
            passwords[StationID(station)] = Array(password.utf8)
        }
        return StationPasswords(passwords: passwords)
    }

    /// How many stations may connect.
    var count: Int { passwords.count }

    /// Whether `password` is `station`'s. The comparison takes the same time wherever the two
    /// differ, and a station without a password is compared with one all the same.
    func accepts(_ password: String, of station: StationID) -> Bool {
        let expected = passwords[station]
        return Self.equalInConstantTime(Array(password.utf8), expected ?? []) && expected != nil
    }

    /// Byte strings compared without an early exit: the time depends on the longer one's length
    /// only.
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    /// The username and password of an `Authorization: Basic …` header, or `nil` when it is not
    /// one (another scheme, not base64, not UTF-8, no colon).
    static func basicCredentials(_ header: String?) -> (username: String, password: String)? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

/// `--ocpp` could not be set up: what, and why.
struct ChargerSetupError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
