import Foundation
import SlotScheduler

/// One operation of a simulated user, rendered from an ``Adapter/Request`` template.
public struct RenderedRequest: Sendable, Equatable {
    public var method: String
    /// The path and query, placeholders replaced.
    public var path: String
    public var headers: [(String, String)]
    public var body: Data?

    public static func == (a: Self, b: Self) -> Bool {
        a.method == b.method && a.path == b.path && a.body == b.body
            && a.headers.map { [$0.0, $0.1] } == b.headers.map { [$0.0, $0.1] }
    }
}

extension Adapter {
    /// The values of a request's placeholders.
    public struct Values: Sendable {
        public var user: UInt64
        public var station = ""
        public var socket = ""
        public var date = ""
        public var hour = 0
        public var requestID = ""
        public var booking = ""
        /// A hold's id, as the API answered it.
        public var hold = ""
        public var page = 0
        /// The connector of the socket a request names (an any-socket request asks for it).
        public var connector = ""
        /// The code a check-in presents: its socket's `Socket.accessCode`; `nil` for a socket
        /// without one, and a body member that is exactly `{accessCode}` is then left out.
        public var accessCode: String?
        /// Where a check-out leaves its vehicle (`{latitude}`, `{longitude}`); `nil` for one that
        /// leaves it in place, and a body member that is exactly either is then left out.
        public var leftAt: Coordinate?
        /// Who sends the request, when not `user`: the credentials are the caller's, the
        /// placeholders `user`'s (to check that one user cannot read another's bookings).
        public var caller: UInt64?

        public init(user: UInt64) { self.user = user }

        /// Every placeholder a request may name (``text(_:)`` gives each one's value).
        static let names = [
            "user", "station", "socket", "date", "hour", "requestID", "booking", "hold", "page", "connector",
            "accessCode", "latitude", "longitude",
        ]

        /// Whether placeholder `name` has no value here, so a body member that is exactly it is
        /// left out (rather than sent empty).
        func isAbsent(_ name: String) -> Bool {
            switch name {
            case "accessCode": accessCode == nil
            case "latitude", "longitude": leftAt == nil
            default: false
            }
        }

        func text(_ name: String) -> String? {
            switch name {
            case "user": String(user)
            case "station": station
            case "socket": socket
            case "date": date
            case "hour": String(hour)
            case "requestID": requestID
            case "booking": booking
            case "hold": hold
            case "page": String(page)
            case "connector": connector
            case "accessCode": accessCode
            case "latitude": leftAt.map { "\($0.latitude)" }
            case "longitude": leftAt.map { "\($0.longitude)" }
            default: nil
            }
        }

        func json(_ name: String) -> JSONValue? {
            switch name {
            // A user id above Int64.max (JSON numbers beyond it lose digits) is sent as its digits.
            case "user": Int64(exactly: user).map(JSONValue.integer) ?? .string(String(user))
            case "hour": .integer(Int64(clamping: hour))
            case "page": .integer(Int64(clamping: page))
            case "latitude": leftAt.map { .number($0.latitude) }
            case "longitude": leftAt.map { .number($0.longitude) }
            default: text(name).map(JSONValue.string)
            }
        }
    }

    /// `request` for `values`, with the user's credentials (`token` for `jwt-hs256`).
    public func render(_ request: Request, _ values: Values, token: String?) -> RenderedRequest {
        let path = Self.fill(request.path, values, escape: true)
        var headers = (request.headers ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, Self.fill($0.value, values)) }
        if let auth {
            switch auth.type {
            case "header":
                var credentials = values
                credentials.user = values.caller ?? values.user
                headers.append((auth.header ?? "", Self.fill(auth.value ?? "", credentials)))
            default: if let token { headers.append(("Authorization", "Bearer \(token)")) }
            }
        }
        var body: Data?
        if let template = request.body {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            body = try? encoder.encode(Self.fill(template, values))
            headers.append(("Content-Type", "application/json"))
        }
        return RenderedRequest(method: request.method, path: path, headers: headers, body: body)
    }

    static func fill(_ template: JSONValue, _ values: Values) -> JSONValue {
        switch template {
        case .string(let text):
            if text.hasPrefix("{"), text.hasSuffix("}"), let value = values.json(String(text.dropFirst().dropLast())) {
                return value
            }
            return .string(fill(text, values))
        case .array(let items): return .array(items.map { fill($0, values) })
        case .object(let object):
            return .object(
                object.compactMapValues { member in
                    if case .string(let text) = member, text.hasPrefix("{"), text.hasSuffix("}"),
                        values.isAbsent(String(text.dropFirst().dropLast()))
                    {
                        return nil
                    }
                    let filled = fill(member, values)
                    // An object whose members were all left out goes too (`"leftAt": {}`).
                    if case .object(let members) = member, !members.isEmpty, filled == .object([:]) { return nil }
                    return filled
                })
        default: return template
        }
    }

    /// The names of `text`'s placeholders, as ``fill(_:_:escape:)`` finds them.
    static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    /// The placeholders of a body template's strings.
    static func placeholders(in template: JSONValue) -> [String] {
        switch template {
        case .string(let text): placeholders(in: text)
        case .array(let items): items.flatMap { placeholders(in: $0) }
        case .object(let object): object.keys.sorted().flatMap { placeholders(in: object[$0] ?? .null) }
        default: []
        }
    }

    /// `text` with every `{name}` replaced (percent-encoded for a path when `escape`).
    static func fill(_ text: String, _ values: Values, escape: Bool = false) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            if let value = values.text(name) {
                result +=
                    escape
                    ? (value.addingPercentEncoding(
                        withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "&", "="])) ?? value) : value
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
