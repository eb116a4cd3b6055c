/// Which columns of a charging-session CSV hold what, chosen by header name, and how the sessions
/// become a scenario. ``SessionLayout/dundee`` is Dundee City Council's layout.
public struct SessionLayout: Sendable, Equatable {
    /// The start: a date, or a date and time ("7/29/2011 20:17", "2018-06-06T08:05").
    public var start: String
    /// The start time ("08:05", "8:05 PM"), when it has a column of its own.
    public var startTime: String?
    /// The station (site) name. Stations are named after it; their ids are its slug.
    public var station: String
    /// The socket within the station: one column, or several joined with "-" ("CP ID", "Connector").
    public var socket: [String]
    /// The user id; nil books every row as a user of its own. See ``SessionImporter``.
    public var user: String?
    /// The end (a date, or date and time), with ``endTime`` when the time is separate. With an end
    /// or a ``duration``, a session books every hour it overlaps (at most 24); without, its start hour.
    public var end: String?
    public var endTime: String?
    /// The duration: `h:mm:ss`, `h:mm` or a number of minutes.
    public var duration: String?
    /// The zone label of the start time (PDT, PST, BST, GMT, +01:00), which tells the two
    /// occurrences of the repeated autumn hour apart.
    public var zoneLabel: String?
    /// A numeric session id: duplicates are skipped, and it orders sessions requested at once.
    public var event: String?
    /// The charger model, which sets a socket's connector and power ("Rapid", "22kW", else 7 kW).
    public var model: String?
    /// The order of a date's day, month and year; nil infers it from the column's values.
    public var dateOrder: DateOrder?
    /// The stations' IANA time zone ("America/Los_Angeles").
    public var timeZone: String
    /// How many hours before its start each session is requested: one of ``leadHoursRange``.
    public var leadHours: Int = 3
    /// The lead hours an import accepts: up to 30 days.
    public static let leadHoursRange = 0...720
    /// The policy's upcoming-bookings limit.
    public var maxUpcomingBookings: Int = 10
    /// The scenario's name, description, attribution and seed; the stations' city.
    public var name: String?
    public var description: String?
    public var attribution: String?
    public var seed: UInt64 = 1
    public var city: String = ""
    /// Removed from the end of station names before they become ids (", Dundee").
    public var stationSuffix: String?

    public init(start: String, station: String, socket: [String], timeZone: String) {
        self.start = start
        self.station = station
        self.socket = socket
        self.timeZone = timeZone
    }

    /// The order of day, month and year in a date.
    public enum DateOrder: String, Sendable, Equatable, CaseIterable {
        /// 2018-06-06
        case ymd
        /// 06/06/2018
        case dmy
        /// 6/29/2011
        case mdy
    }

    /// Every column the layout names, with the option that named it.
    var columns: [(option: String, name: String)] {
        var list = [("--start", start), ("--station", station)]
        list += socket.map { ("--socket", $0) }
        let optional: [(String, String?)] = [
            ("--start-time", startTime), ("--user", user), ("--end", end), ("--end-time", endTime),
            ("--duration", duration), ("--zone-label", zoneLabel), ("--event", event), ("--model", model),
        ]
        list += optional.compactMap { option, name in name.map { (option, $0) } }
        return list
    }
}

extension SessionLayout {
    /// Dundee City Council's charging sessions, 6 June to 6 September 2018 (Open Government
    /// Licence v3.0): `Charging event,User ID,CP ID,Connector,Start Date,Start Time,End Date,…`,
    /// dates dd/mm/yyyy, times in Europe/London. Each session books its start hour.
    public static var dundee: SessionLayout {
        var layout = SessionLayout(
            start: "Start Date", station: "Site", socket: ["CP ID", "Connector"], timeZone: "Europe/London")
        layout.startTime = "Start Time"
        layout.user = "User ID"
        layout.event = "Charging event"
        layout.model = "Model"
        layout.dateOrder = .dmy
        layout.name = "dundee-2018"
        layout.description =
            "Replay of every public charging session recorded by Dundee City Council's charge points, 6 June to 6 September 2018, as advance bookings."
        layout.attribution = DundeeImporter.attribution
        layout.seed = 2018
        layout.city = "Dundee"
        layout.stationSuffix = ", Dundee"
        return layout
    }

    /// The presets by name, for `schedule-sim import --preset`.
    public static let presets: [String: SessionLayout] = ["dundee": .dundee]
}
