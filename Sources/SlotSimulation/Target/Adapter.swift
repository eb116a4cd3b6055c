import Foundation
import SlotScheduler

/// How to drive a booking API over HTTP (`schedule-sim run SCENARIO --target URL --adapter FILE`):
/// for each operation the method, path, headers and body, with `{name}` placeholders; how the
/// simulated users authenticate; and how to read an answer. Version 1; its JSON Schema is
/// `Scenarios/adapter.schema.json`, and the DocC article *Checking a booking API* shows one.
///
/// Placeholders: `{user}`, `{station}`, `{socket}`, `{date}` (YYYY-MM-DD), `{hour}` (0-23),
/// `{requestID}`, `{booking}` and `{hold}` (ids the API returned), `{page}` (0, 1, … for a list),
/// `{connector}` (the connector of the socket named, for an any-socket request),
/// `{accessCode}` (the socket's code, for a check-in) and `{latitude}` and `{longitude}` (where a
/// check-out leaves its vehicle, in degrees). In a body, a string that is exactly one placeholder
/// becomes that value, as a number for `{user}`, `{hour}`, `{page}`, `{latitude}` and
/// `{longitude}`; elsewhere each placeholder is replaced by its text (in a path,
/// percent-encoded). A body member that is exactly a placeholder without a value (`{accessCode}`
/// for a socket without a code, `{latitude}` for a check-out that leaves its vehicle in place) is
/// left out, and so is an object all of whose members were.
public struct Adapter: Codable, Sendable, Equatable {
    public var version: Int
    public var name: String?
    public var auth: Auth?
    public var operations: Operations
    public var answers: Answers

    /// How a simulated user proves who they are.
    public struct Auth: Codable, Sendable, Equatable {
        /// `header`: a header with a value template (`{user}`); `jwt-hs256`: `Authorization:
        /// Bearer <JWT>` with `sub` = the user in decimal and `exp` an hour ahead, signed with
        /// HMAC-SHA256 under the secret in `secretFile` (relative to the adapter; or `--secret`).
        public var type: String
        public var header: String?
        public var value: String?
        public var secretFile: String?
    }

    public struct Operations: Codable, Sendable, Equatable {
        /// Book a slot for the user, with an idempotency key (`{requestID}`).
        public var reserve: Request
        /// Cancel the user's booking `{booking}`.
        public var cancel: Request?
        /// One page (`{page}`) of the user's bookings, read at the end to check what was kept.
        public var bookings: Request
        /// Optional: book any free socket of `{station}` with `{connector}` at `{date}` `{hour}`,
        /// key `{requestID}`; the answer names the socket (``Answers/socket``).
        public var anySocket: Request?
        /// Optional: move the user's booking `{booking}` to `{station}` `{socket}` `{date}`
        /// `{hour}`, key `{requestID}`.
        public var reschedule: Request?
        /// Optional: read the user's booking `{booking}`: answered as accepted while it exists.
        public var booking: Request?
        /// Optional: check the user's booking `{booking}` in, presenting `{accessCode}` (its
        /// socket's code in the scenario's catalog; a body member that is exactly `{accessCode}`
        /// is left out for a socket without one).
        public var checkIn: Request?
        /// Optional: check the user's booking `{booking}` out: answered as accepted, it ends the
        /// booking as a cancel does (it is no longer live, its slot and its user's limit free).
        /// When the scenario's workload moves vehicles (``Workload/leftWithinKm``), it leaves the
        /// vehicle at `{latitude}` `{longitude}`, and the station must be there after the run
        /// (read through `stations` and ``Answers/places``).
        public var checkOut: Request?
        /// Optional: hold `{station}` `{socket}` `{date}` `{hour}` for the user, key
        /// `{requestID}`. Answered as accepted, the slot is the user's until the hold is confirmed,
        /// released or expires (the scenario's `holdSeconds`), and the hold counts toward the
        /// user's limit. Its id, for `{hold}`, is read at ``Answers/hold`` when that is given.
        public var hold: Request?
        /// Optional: turn the user's hold (`{hold}`, or the hold of `{station}` `{socket}`
        /// `{date}` `{hour}`) into a booking; the accepted answer names it at ``Answers/booking``.
        public var confirm: Request?
        /// Optional: release the user's hold (`{hold}`, or of its slot): the slot is free again.
        public var release: Request?
        /// Optional: read `{station}`'s day `{date}` (its sockets' hours, free or taken), as the
        /// user: load that reads while others book; answered as accepted, or 5xx as unknown.
        public var dayView: Request?
        /// Optional: list the stations, as the user: a read that names no slot.
        public var stations: Request?

        /// The operations the adapter names, by the name the history gives them.
        var named: [(String, Request)] {
            [("reserve", reserve), ("bookings", bookings)]
                + [
                    ("cancel", cancel), ("anySocket", anySocket), ("reschedule", reschedule), ("booking", booking),
                    ("checkIn", checkIn), ("checkOut", checkOut), ("hold", hold), ("confirm", confirm),
                    ("release", release), ("dayView", dayView), ("stations", stations),
                ].compactMap { name, request in request.map { (name, $0) } }
        }
    }

    public struct Request: Codable, Sendable, Equatable {
        public var method: String
        public var path: String
        public var headers: [String: String]?
        public var body: JSONValue?

        /// Whether the path, a header or the body names the placeholder `{name}`.
        public func mentions(_ name: String) -> Bool {
            let text = (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return text.contains("{\(name)}")
        }
    }

    public struct Answers: Codable, Sendable, Equatable {
        /// Statuses of a change made (or, for a repeated key, of the change made before).
        public var accepted: [Int]
        /// Statuses of a request refused by the API's rules: nothing changed.
        public var refused: [Int]
        /// Statuses that mean "not done, try later" (429, 503 with Retry-After): nothing changed.
        public var retry: [Int]?
        /// JSON pointer to the refusal's reason in a refused answer.
        public var reason: String?
        /// The API's refusal reasons in SlotScheduler's names (`Rejection.Reason`), for
        /// `--check rules`: `{"taken": "slotTaken"}`. A reason not named here is read as
        /// SlotScheduler's own name.
        public var reasons: [String: String]?
        /// JSON pointer to the booking id in an accepted reservation's answer.
        public var booking: String
        /// JSON pointer to the socket an accepted any-socket request booked (needed with `anySocket`).
        public var socket: String?
        /// JSON pointer to the hold's id in an accepted hold's answer, for `{hold}` (none: the
        /// API names a hold by its slot).
        public var hold: String?
        /// How to read a page of the user's bookings.
        public var list: BookingList
        /// Optional: where the answer of `stations` keeps each station's place, read after a run
        /// whose check-outs moved vehicles to check that each is where its last ride left it.
        public var places: PlaceList?
    }

    /// Where the stations' answer keeps its stations and each station its id and place.
    public struct PlaceList: Codable, Sendable, Equatable {
        /// Pointer to the array of stations (`""` for an answer that is the array).
        public var items: String
        public var id: String
        public var latitude: String
        public var longitude: String
        /// Pointer to a boolean that is true when another page follows (`{page}` in the
        /// request); none: one page.
        public var more: String?
    }

    /// Where a page of bookings keeps its items and each item its id, slot and liveness.
    public struct BookingList: Codable, Sendable, Equatable {
        /// Pointer to the array of bookings (`""` for an answer that is the array).
        public var items: String
        public var id: String
        public var station: String
        public var socket: String
        public var date: String
        public var hour: String
        /// Pointer to a field whose value says whether the booking is live, and the values that do.
        public var live: String?
        public var liveValues: [JSONValue]?
        /// Pointer to a boolean that is true when another page follows (none: one page).
        public var more: String?
    }

    /// Reads and checks an adapter file.
    public static func load(path: String) throws(AdapterError) -> Adapter {
        let data: Data
        do { data = try InputFile.contents(path, maxBytes: 1 << 20) } catch {
            throw AdapterError(file: path, problem: error.problem)
        }
        let adapter: Adapter
        do { adapter = try JSONDecoder().decode(Adapter.self, from: data) } catch {
            throw AdapterError(file: path, problem: "is not an adapter (version 1): \(JSONPath.explain(error))")
        }
        try adapter.validate(file: path)
        return adapter
    }

    func validate(file: String) throws(AdapterError) {
        guard version == 1 else { throw AdapterError(file: file, problem: "version must be 1, not \(version)") }
        if let auth {
            switch auth.type {
            case "header" where auth.header != nil && auth.value != nil: break
            case "jwt-hs256": break
            default:
                throw AdapterError(
                    file: file, problem: "auth.type must be header (with header and value) or jwt-hs256")
            }
        }
        if operations.anySocket != nil, answers.socket == nil {
            throw AdapterError(file: file, problem: "operations.anySocket needs answers.socket, the socket it booked")
        }
        if answers.places != nil, operations.stations == nil {
            throw AdapterError(file: file, problem: "answers.places needs operations.stations, whose answer it reads")
        }
        if operations.hold == nil, operations.confirm != nil || operations.release != nil {
            throw AdapterError(file: file, problem: "operations.confirm and operations.release need operations.hold")
        }
        for (name, request) in operations.named {
            guard ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(request.method) else {
                throw AdapterError(
                    file: file, problem: "operations.\(name).method \(request.method) is not an HTTP method")
            }
            guard request.path.hasPrefix("/") else {
                throw AdapterError(file: file, problem: "operations.\(name).path must start with /")
            }
            try Self.checkPlaceholders(of: request, named: name, file: file)
            // A line break in a header would end it and start another (a request split in two).
            for (header, value) in (request.headers ?? [:]).sorted(by: { $0.key < $1.key })
            where !Self.isHeaderText(header, name: true) || !Self.isHeaderText(value, name: false) {
                throw AdapterError(
                    file: file,
                    problem: "operations.\(name).headers: \(header.debugDescription) is no header name and value "
                        + "(a token; a value without control characters)")
            }
        }
        if let auth,
            !Self.isHeaderText(auth.header ?? "x", name: true) || !Self.isHeaderText(auth.value ?? "", name: false)
        {
            throw AdapterError(file: file, problem: "auth.header and auth.value must be a header name and value")
        }
        let list = answers.list
        let places = answers.places
        let pointers =
            [answers.reason, answers.booking, answers.socket, answers.hold]
            + [list.items, list.id, list.station, list.socket, list.date, list.hour, list.live, list.more]
            + [places?.items, places?.id, places?.latitude, places?.longitude, places?.more]
        for pointer in pointers.compactMap({ $0 }) where !pointer.isEmpty && !pointer.hasPrefix("/") {
            throw AdapterError(file: file, problem: "answers: \(pointer.debugDescription) is not a JSON pointer (/…)")
        }
        if let status = (answers.accepted + answers.refused + (answers.retry ?? [])).first(where: {
            !(100...599).contains($0)
        }) {
            throw AdapterError(file: file, problem: "answers: status \(status) is not 100...599")
        }
        for (theirs, ours) in (answers.reasons ?? [:]).sorted(by: { $0.key < $1.key })
        where Rejection.Reason(rawValue: ours) == nil {
            throw AdapterError(
                file: file, problem: "answers.reasons.\(theirs): \(ours) is not a reason of SlotScheduler's")
        }
        let overlap = Set(answers.accepted).intersection(answers.refused).union(
            Set(answers.accepted + answers.refused).intersection(answers.retry ?? []))
        guard overlap.isEmpty else {
            throw AdapterError(file: file, problem: "answers: status \(overlap.sorted()) is in two classes")
        }
    }

    /// Refuses a placeholder no request has a value for (`{Socket}`), which would be sent as it
    /// is, and a path that is no request target once its placeholders are filled (a brace, a
    /// space, a byte beyond ASCII): such a request is never sent, and a run of them found nothing.
    static func checkPlaceholders(of request: Request, named name: String, file: String) throws(AdapterError) {
        let templates =
            [("path", request.path)]
            + (request.headers ?? [:]).sorted { $0.key < $1.key }.map { ("headers.\($0.key)", $0.value) }
        let named =
            templates.flatMap { where_, text in Self.placeholders(in: text).map { (where_, $0) } }
            + Self.placeholders(in: request.body ?? .null).map { ("body", $0) }
        if let (where_, unknown) = named.first(where: { !Values.names.contains($0.1) }) {
            throw AdapterError(
                file: file,
                problem: "operations.\(name).\(where_): {\(unknown)} is not a placeholder (they are "
                    + Values.names.map { "{\($0)}" }.joined(separator: " ") + ")")
        }
        var filled = Values(user: 1)
        (filled.station, filled.socket, filled.date, filled.booking, filled.hold) = ("s", "s", "d", "b", "h")
        (filled.requestID, filled.connector, filled.accessCode) = ("r", "c", "a")
        filled.leftAt = Coordinate(latitude: 0, longitude: 0)
        guard isRequestTarget(fill(request.path, filled, escape: true)) else {
            throw AdapterError(
                file: file,
                problem: "operations.\(name).path \(request.path.debugDescription) is no request target: "
                    + "letters, digits and -._~:/?#[]@!$&'()*+,;=% only, besides its placeholders")
        }
    }

    /// Whether every byte of `text` may stand in a request target (RFC 3986's unreserved,
    /// reserved and `%`), as the simulator sends one.
    public static func isRequestTarget(_ text: String) -> Bool {
        let punctuation = "-._~:/?#[]@!$&'()*+,;=%".utf8
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default: punctuation.contains(byte)
            }
        }
    }

    /// Whether `text` is an HTTP header name (a token: RFC 9110, 5.6.2) or value (no control
    /// characters but tab).
    static func isHeaderText(_ text: String, name: Bool) -> Bool {
        guard name else {
            return text.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
        }
        let tchar = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        return !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || tchar.contains($0))
            }
    }

    /// What an answer's status says about the change.
    public enum Verdict: String, Sendable {
        /// Made: Jepsen's `ok`.
        case accepted
        /// Not made: refused, or to be retried later (Jepsen's `fail`).
        case refused
        case retryLater
        /// Maybe made (another 5xx, no answer): Jepsen's `info`.
        case unknown
    }

    /// A refusal's reason in SlotScheduler's names: mapped by ``Answers/reasons``, else read as
    /// one of its names; `nil` for none or one the rules do not know.
    public func reason(_ text: String?) -> Rejection.Reason? {
        guard let text else { return nil }
        return Rejection.Reason(rawValue: answers.reasons?[text] ?? text)
    }

    public func verdict(status: Int?) -> Verdict {
        guard let status else { return .unknown }
        if answers.accepted.contains(status) { return .accepted }
        if answers.refused.contains(status) { return .refused }
        if answers.retry?.contains(status) == true { return .retryLater }
        return .unknown
    }
}

/// An adapter file that cannot be used: which, and why.
public struct AdapterError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var problem: String

    public var description: String { "\(file): \(problem)" }
}
