/// The UTF-8 byte order mark. Readers of text from outside (scenarios, CSVs) skip it at the
/// start, as `JSONDecoder` does.
enum ByteOrderMark {
    static let utf8: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The bytes the mark takes at the start of `text`: 3, or 0 without one.
    static func length(in text: some Collection<UInt8>) -> Int {
        text.starts(with: utf8) ? utf8.count : 0
    }
}
