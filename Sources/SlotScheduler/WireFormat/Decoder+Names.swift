extension Decoder {
    /// One of a closed set of names (an enum's raw values); a name outside the set is a
    /// `DecodingError.dataCorrupted` that lists the set ("expected one of displace, refuse"),
    /// where Foundation's synthesized decoding says only that the value is invalid.
    package func decodeName<Name: CaseIterable & RawRepresentable>(_: Name.Type = Name.self) throws -> Name
    where Name.RawValue == String {
        let text = try singleValueContainer().decode(String.self)
        guard let name = Name(rawValue: text) else {
            let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "expected one of \(names)"))
        }
        return name
    }
}
