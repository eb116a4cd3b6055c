import SlotScheduler
import Testing

@Suite("Station search: folding, filters, distance, paging")
struct StationSearchTests {
    private static func ids(_ page: StationPage) -> [StationID] { page.stations.map(\.station.id) }

    /// Folding ignores case, accents and Turkish dotted/dotless i.
    @Test(arguments: [
        ("can", "Çankırı"), ("istanbul", "İstanbul"), ("IZMIR", "İzmir"), ("KADIKOY", "Kadıköy"),
        ("sarj", "Şarj"), ("strasse", "Straße"), ("cafe", "Café"),
    ])
    func folding(query: String, text: String) {
        #expect(TextFolding.matches(text, query: query))
    }

    /// Folding gives the same result for composed and decomposed input, and does not match unrelated text.
    @Test func foldingDetails() {
        #expect(TextFolding.fold("Çankırı") == "cankiri")
        #expect(TextFolding.fold("C\u{0327}ankiri") == "cankiri")
        #expect(TextFolding.fold("İZMİR") == "izmir")
        #expect(!TextFolding.matches("Ankara", query: "izmir"))
        #expect(TextFolding.matches("Ankara", query: ""))
    }

    /// Text search matches the folded name or city.
    @Test func textSearch() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(Self.ids(try catalog.search(StationQuery(text: "can"))) == ["CKR"])
        #expect(Self.ids(try catalog.search(StationQuery(text: "istanbul"))) == ["IST"])
        #expect(Self.ids(try catalog.search(StationQuery(text: "IZMIR"))) == ["IZM"])
        #expect(Self.ids(try catalog.search(StationQuery(text: "kadikoy"))) == ["IST"])
        #expect(Self.ids(try catalog.search(StationQuery(text: "LONDON"))) == ["LON", "LHR"])  // by name
        #expect(try catalog.search(StationQuery(text: "nowhere-at-all")).stations.isEmpty)
    }

    /// Without a location the order is by folded name, then id.
    @Test func defaultOrderIsByName() throws {
        let catalog = try Catalog(Fixture.stations)
        let page = try catalog.search(StationQuery())
        #expect(Self.ids(page) == ["IZM", "LON", "LHR", "IST", "CKR", "NOW"])
        #expect(page.totalCount == 6)
        #expect(!page.hasMore)
    }

    /// City, connector, power and facility filters combine.
    @Test func filters() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(Self.ids(try catalog.search(StationQuery(city: "london"))) == ["LON", "LHR"])
        #expect(Self.ids(try catalog.search(StationQuery(city: "Lond"))) == [])  // city is equality, not prefix
        #expect(Self.ids(try catalog.search(StationQuery(connector: "CHAdeMO"))) == ["LON"])
        #expect(Self.ids(try catalog.search(StationQuery(connector: "type-2"))) == ["IZM", "LON", "IST"])
        #expect(Self.ids(try catalog.search(StationQuery(minimumPowerKW: 60))) == ["LHR", "CKR"])
        #expect(Self.ids(try catalog.search(StationQuery(city: "İSTANBUL", connector: .type2))) == ["IST"])
        #expect(Self.ids(try catalog.search(StationQuery(city: "istanbul", connector: .ccs))) == [])
    }

    /// A 64 KiB connector name (not length-limited like the texts) normalizing to `type2` finds what
    /// `type-2` finds, in the catalogs of a ledger and a scheduler; a 64 KiB name that does not
    /// normalize to a catalog connector finds nothing. The search normalizes it once, not once per socket.
    @Test func longConnectorNamesMatchAsNormalized() throws {
        let long = ConnectorType("TY" + String(repeating: "- _", count: 65_532 / 3) + "pe 2")
        #expect(long.rawValue.utf8.count >= 65_532 && long.normalized == "type2")
        let miss = ConnectorType("Type 2" + String(repeating: "x", count: 65_530))
        for catalog in [try Fixture.ledger().catalog, try Fixture.scheduler().rules.catalog] {
            #expect(Self.ids(try catalog.search(StationQuery(connector: long))) == ["IZM", "LON", "IST"])
            #expect(Self.ids(try catalog.search(StationQuery(city: "İSTANBUL", connector: long))) == ["IST"])
            #expect(try catalog.search(StationQuery(connector: miss)).stations.isEmpty)
            #expect(try catalog.search(StationQuery(connector: miss)).totalCount == 0)
        }
    }

    /// Facilities match folded and all requested facilities must be offered.
    @Test func facilities() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(Self.ids(try catalog.search(StationQuery(facilities: ["cafe"]))) == ["IZM", "LON"])
        #expect(Self.ids(try catalog.search(StationQuery(facilities: ["WC"]))) == ["LON", "IST"])
        #expect(Self.ids(try catalog.search(StationQuery(facilities: ["cafe", "wc"]))) == ["LON"])
        #expect(Self.ids(try catalog.search(StationQuery(facilities: ["PARKING", "Cafe"]))) == ["IZM"])
        #expect(Self.ids(try catalog.search(StationQuery(facilities: ["sauna"]))) == [])
    }

    /// With a location, results are sorted by distance, stations without coordinates last; a radius filters.
    @Test func distance() throws {
        let catalog = try Catalog(Fixture.stations)
        let westminster = Coordinate(latitude: 51.4995, longitude: -0.1248)
        let page = try catalog.search(StationQuery(near: westminster))
        #expect(Self.ids(page) == ["LON", "LHR", "IST", "IZM", "CKR", "NOW"])
        let km = page.stations.compactMap(\.distanceKilometres)
        #expect(km == km.sorted())
        #expect(km.count == 5)
        let first = try #require(km.first)
        #expect(first > 0.5 && first < 1.5)
        let near = try catalog.search(StationQuery(near: westminster, withinKilometres: 50))
        #expect(Self.ids(near) == ["LON", "LHR"])
    }

    /// Pages are stable: walking them in size 2 gives the whole ordered list once, with `hasMore` right.
    @Test func stablePaging() throws {
        let catalog = try Catalog(Fixture.stations)
        let whole = Self.ids(try catalog.search(StationQuery(pageSize: 500)))
        var walked: [StationID] = []
        for number in 0..<3 {
            let page = try catalog.search(StationQuery(page: number, pageSize: 2))
            #expect(page.stations.count == 2)
            #expect(page.totalCount == 6)
            #expect(page.hasMore == (number < 2))
            walked += Self.ids(page)
            #expect(Self.ids(try catalog.search(StationQuery(page: number, pageSize: 2))) == Self.ids(page))
        }
        #expect(walked == whole)
        #expect(try catalog.search(StationQuery(page: 3, pageSize: 2)).stations.isEmpty)
    }

    /// A negative page or a page size outside 1...500 is refused naming the field.
    @Test func badPaging() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(invalidValue { try catalog.search(StationQuery(page: -1)) }?.field == "page")
        #expect(invalidValue { try catalog.search(StationQuery(pageSize: 0)) }?.field == "pageSize")
        #expect(invalidValue { try catalog.search(StationQuery(pageSize: 501)) }?.field == "pageSize")
    }
}
