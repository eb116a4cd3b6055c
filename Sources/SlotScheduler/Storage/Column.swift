/// A growable array of plain values whose count and element pointer live in the struct itself,
/// not in a header on the heap: the journal, the booking records' tail chunk and the users'
/// entries, which every accepted reservation appends to.
///
/// Why not `Array`: an append to an `Array` reads its capacity and writes its count in the heap
/// header, a line of its own. A `Column`'s count sits in the struct, which a ``Scheduler`` keeps
/// in the locked cell beside its lock word (the books lead with their columns): the line the call
/// has already taken. The heap object is only read (for the copy-on-write check and on growth).
/// Callgrind: 412 instructions per `Ledger.attempt` and 453 per `Scheduler.attempt`, against
/// 425 and 470 with `Array`s; see the Concurrency article for what it did and did not change.
///
/// Value semantics as `Array`'s: a copy shares the storage until either copy is written. Every
/// access through `base` extends the storage's lifetime over it, since a raw pointer does not.
/// - Complexity: reads and writes O(1); appends amortised O(1).
///
/// `@unchecked Sendable`: `base` is `storage.base`, and ``ColumnStorage`` says why sharing it is
/// safe.
struct Column<Element: BitwiseCopyable>: RandomAccessCollection, MutableCollection, @unchecked Sendable {
    // The count first: a book that leads with its columns keeps their counts on its lock's line.
    private(set) var count: Int
    /// `storage.base`, kept here so that reaching an element reads no heap header.
    private var base: UnsafeMutablePointer<Element>
    private var storage: ColumnStorage<Element>

    init() { self.init(storage: ColumnStorage(capacity: 0), count: 0) }

    private init(storage: ColumnStorage<Element>, count: Int) {
        self.storage = storage
        base = storage.base
        self.count = count
    }

    /// Elements the storage has room for; read from the heap object, which appends do not write.
    private var capacity: Int { storage.capacity }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            checkIndex(index)
            return withExtendedLifetime(storage) { base[index] }
        }
        set {
            checkIndex(index)
            if !isKnownUniquelyReferenced(&storage) { copyToNewStorage(capacity: capacity) }
            withExtendedLifetime(storage) { base[index] = newValue }
        }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity || !isKnownUniquelyReferenced(&storage) { grow() }
        withExtendedLifetime(storage) { base[count] = element }
        count &+= 1
    }

    mutating func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    /// Makes room for `minimumCapacity` elements in all; reserving more than that is the
    /// caller's choice (``prefault(_:with:)``).
    mutating func reserveCapacity(_ minimumCapacity: Int) {
        if minimumCapacity > capacity { makeUnique(capacity: minimumCapacity) }
    }

    /// Reserves room for `count` elements and touches every page of it now, so that appends
    /// do not fault pages in on the hot path (writing `filler` over the room, which stays free).
    mutating func prefault(_ count: Int, with filler: Element) {
        reserveCapacity(self.count &+ count)
        makeUnique(capacity: capacity)
        withExtendedLifetime(storage) {
            (base + self.count).initialize(repeating: filler, count: capacity &- self.count)
        }
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity, isKnownUniquelyReferenced(&storage) {
            count = 0
        } else {
            self = Column()
        }
    }

    @inline(__always)
    private func checkIndex(_ index: Int) {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "Column index out of range")
    }

    /// Gives a full or shared column storage of its own, doubling its capacity when full.
    @inline(never)
    private mutating func grow() {
        copyToNewStorage(capacity: count == capacity ? Swift.max(16, capacity &* 2) : capacity)
    }

    /// Gives this column storage of its own, of at least `wanted` elements.
    private mutating func makeUnique(capacity wanted: Int) {
        guard wanted > capacity || !isKnownUniquelyReferenced(&storage) else { return }
        copyToNewStorage(capacity: Swift.max(wanted, capacity))
    }

    @inline(never)
    private mutating func copyToNewStorage(capacity: Int) {
        let copy = ColumnStorage<Element>(capacity: capacity)
        // `base` does not keep the old storage alive: without this, the optimizer released it
        // (the assignment below) before the copy read it.
        withExtendedLifetime(storage) { copy.base.initialize(from: base, count: count) }
        self = Column(storage: copy, count: count)
    }
}

/// The heap storage of a ``Column``: its elements, owned by every copy of the column until one
/// of them writes.
///
/// `@unchecked Sendable`: `base` and `capacity` never change after `init`, and the elements are
/// written only through a ``Column`` that holds the only reference (`isKnownUniquelyReferenced`),
/// so a storage shared between values, and so possibly between threads, is only read.
final class ColumnStorage<Element: BitwiseCopyable>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: max(1, capacity))
    }

    deinit { base.deallocate() }
}
