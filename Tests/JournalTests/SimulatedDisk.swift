import Foundation
import SlotScheduler
import SlotSimulation
import Synchronization

@testable import SlotSchedulerJournal

/// A disk that remembers what was synced, to cut the power the way ALICE and CrashMonkey do:
/// after a crash a file holds its synced bytes plus some of the writes made since its last
/// sync, and the directory holds its last synced entries or its current ones.
///
/// Two ways to lose unsynced writes: `.subset` keeps each one with probability 1/2 (holes read
/// as zeros, as unwritten blocks would); `.prefix` keeps them in order up to a random byte.
final class SimulatedDisk: JournalFiles {
    enum Loss: Sendable { case subset, prefix }

    struct Inode {
        var current: [UInt8] = []
        var durable: [UInt8] = []
        var pending: [(offset: Int, bytes: [UInt8])] = []
    }

    struct Disk {
        var inodes: [Int: Inode] = [:]
        var names: [String: Int] = [:]
        var durableNames: [String: Int] = [:]
        var nextInode = 0
        /// I/O calls (writes and syncs) so far, and the one at which the power goes.
        var calls = 0
        var crashAt = Int.max
        var image: [String: [UInt8]]?
        /// Each file's synced length when the power went: acknowledged data lies before it.
        var syncedLengths: [String: Int] = [:]
        var rng: SplitMix64
        var loss: Loss
        /// Faults other than a power loss (``holdWrites``, ``holdNextSync(failing:)``): writes wait
        /// while `writesHeld`; the next sync waits while `syncHeld` and then fails if
        /// `heldSyncFails`, the disk staying on; `heldSyncWaiting` once it waits.
        var writesHeld = false
        var failNextWrite = false
        var holdNextSync = false
        var syncHeld = false
        var heldSyncFails = false
        var heldSyncWaiting = false
    }

    let path = "/simulated"
    let disk: Mutex<Disk>
    /// How long a sync takes, as a real disk's would (0: instantly).
    let syncDelay: Duration

    /// A disk holding `files`, all durable.
    init(_ files: [String: [UInt8]] = [:], seed: UInt64 = 1, loss: Loss = .subset, syncDelay: Duration = .zero) {
        self.syncDelay = syncDelay
        var d = Disk(rng: SplitMix64(seed: seed), loss: loss)
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            d.inodes[d.nextInode] = Inode(current: bytes, durable: bytes)
            d.names[name] = d.nextInode
            d.nextInode += 1
        }
        d.durableNames = d.names
        disk = Mutex(d)
    }

    /// Cuts the power at the `call`-th write or sync from now (that call fails, as do all after).
    func crash(afterCalls call: Int) { disk.withLock { $0.crashAt = $0.calls + call } }

    /// Makes writes wait until ``releaseWrites()``; the first write then fails (no space, say)
    /// when `failingTheFirst`, the disk staying on.
    func holdWrites(failingTheFirst: Bool) {
        disk.withLock {
            $0.writesHeld = true
            $0.failNextWrite = failingTheFirst
        }
    }

    func releaseWrites() { disk.withLock { $0.writesHeld = false } }

    /// Makes the next sync wait until ``releaseSync()``, then fail when `failing` (the write-back
    /// error of that sync's descriptor alone), the disk staying on.
    func holdNextSync(failing: Bool) {
        disk.withLock {
            $0.holdNextSync = true
            $0.heldSyncFails = failing
        }
    }

    func releaseSync() { disk.withLock { $0.syncHeld = false } }

    /// Whether a sync is waiting for ``releaseSync()``.
    var syncIsHeld: Bool { disk.withLock { $0.heldSyncWaiting } }

    /// How long a test waits for a held write or sync to be reached: polls of at least 1 ms, so
    /// at least 600 s, counted only while the waiting task runs. Wall time is no measure here:
    /// the full suite (PostgreSQL included) on 2 cores can keep the pool's threads busy with
    /// other tests for many minutes, and the store's caller, like the test itself, waits its
    /// turn (a CI run under load timed a 600 s deadline out before either had run).
    static let patience = 600_000

    /// Waits, polling, until `condition` holds: a held write or sync waits for its test to
    /// release it, however long that takes (each test releases in a `defer`, so a failing one
    /// cannot leave a store's thread waiting).
    static func waitUntilReleased(_ condition: () -> Bool) {
        while !condition() { usleep(1_000) }
    }

    /// What survived the crash (or, without one, every current file).
    var survivors: [String: [UInt8]] {
        disk.withLock { d in d.image ?? d.names.mapValues { d.inodes[$0]?.current ?? [] } }
    }

    /// Each file's synced length at the crash.
    var syncedLengths: [String: Int] { disk.withLock { $0.syncedLengths } }

    /// Counts one I/O call; throws if the power is (now) off.
    private func io(_ d: inout Disk) throws(JournalError) {
        if d.image == nil {
            d.calls += 1
            if d.calls >= d.crashAt { d.image = Self.afterCrash(&d) }
        }
        if d.image != nil { throw JournalError(.io, file: path, message: "power lost") }
    }

    private static func afterCrash(_ d: inout Disk) -> [String: [UInt8]] {
        let names = d.rng.chance(0.5) ? d.names : d.durableNames
        var image: [String: [UInt8]] = [:]
        for (name, inode) in names.sorted(by: { $0.key < $1.key }) {
            guard let node = d.inodes[inode] else { continue }
            var bytes = node.durable
            d.syncedLengths[name] = bytes.count
            var keep = node.pending.count
            var cut = Int.max
            if d.loss == .prefix, !node.pending.isEmpty {
                keep = d.rng.below(node.pending.count + 1)
                if keep > 0 { cut = d.rng.below(node.pending[keep - 1].bytes.count + 1) }
            }
            for (i, write) in node.pending.prefix(keep).enumerated() {
                if d.loss == .subset, !d.rng.chance(0.5) { continue }
                let data = i == keep - 1 ? Array(write.bytes.prefix(cut)) : write.bytes
                if bytes.count < write.offset + data.count {
                    bytes += [UInt8](repeating: 0, count: write.offset + data.count - bytes.count)
                }
                bytes.replaceSubrange(write.offset..<write.offset + data.count, with: data)
            }
            image[name] = bytes
        }
        return image
    }

    func lock() throws(JournalError) {}
    func unlock() {}

    func list() throws(JournalError) -> [String] { disk.withLock { $0.names.keys.sorted() } }

    func read(_ name: String) throws(JournalError) -> [UInt8] {
        let bytes = disk.withLock { d in d.names[name].flatMap { d.inodes[$0]?.current } }
        guard let bytes else { throw JournalError(.io, file: name, message: "no such file") }
        return bytes
    }

    func create(_ name: String) throws(JournalError) -> any JournalFile {
        try disk.withLock { d throws(JournalError) in
            try io(&d)
            d.inodes[d.nextInode] = Inode()
            d.names[name] = d.nextInode
            d.nextInode += 1
            return File(disk: self, inode: d.nextInode - 1, position: 0)
        }
    }

    func openForAppend(_ name: String, truncatingTo size: Int) throws(JournalError) -> any JournalFile {
        try disk.withLock { d throws(JournalError) in
            guard let inode = d.names[name], var node = d.inodes[inode] else {
                throw JournalError(.io, file: name, message: "no such file")
            }
            // Truncation is taken as durable at once: the store syncs right after it.
            node.current = Array(node.current.prefix(size))
            node.durable = node.current
            node.pending = []
            d.inodes[inode] = node
            return File(disk: self, inode: inode, position: size)
        }
    }

    func rename(_ from: String, to: String) throws(JournalError) {
        try disk.withLock { d throws(JournalError) in
            try io(&d)
            guard let inode = d.names.removeValue(forKey: from) else {
                throw JournalError(.io, file: from, message: "no such file")
            }
            d.names[to] = inode
        }
    }

    func remove(_ name: String) throws(JournalError) {
        try disk.withLock { d throws(JournalError) in
            try io(&d)
            d.names[name] = nil
        }
    }

    func syncDirectory() throws(JournalError) {
        try disk.withLock { d throws(JournalError) in
            try io(&d)
            d.durableNames = d.names
        }
    }

    final class File: JournalFile {
        let disk: SimulatedDisk
        let inode: Int
        let position: Mutex<Int>

        init(disk: SimulatedDisk, inode: Int, position: Int) {
            self.disk = disk
            self.inode = inode
            self.position = Mutex(position)
        }

        func write(_ bytes: [UInt8]) throws(JournalError) {
            SimulatedDisk.waitUntilReleased { !disk.disk.withLock { $0.writesHeld } }
            let at = position.withLock { $0 }
            try disk.disk.withLock { d throws(JournalError) in
                if d.failNextWrite {
                    d.failNextWrite = false
                    throw JournalError(.io, file: disk.path, message: "no space left on device (simulated)")
                }
                try disk.io(&d)
                var node = d.inodes[inode] ?? Inode()
                if node.current.count < at + bytes.count {
                    node.current += [UInt8](repeating: 0, count: at + bytes.count - node.current.count)
                }
                node.current.replaceSubrange(at..<at + bytes.count, with: bytes)
                node.pending.append((at, bytes))
                d.inodes[inode] = node
            }
            position.withLock { $0 = at + bytes.count }
        }

        func sync(metadata: Bool) throws(JournalError) {
            if disk.syncDelay > .zero { usleep(UInt32(disk.syncDelay.components.attoseconds / 1_000_000_000_000)) }
            let held = disk.disk.withLock { d in
                guard d.holdNextSync else { return false }
                d.holdNextSync = false
                d.syncHeld = true
                d.heldSyncWaiting = true
                return true
            }
            if held {
                SimulatedDisk.waitUntilReleased { !disk.disk.withLock { $0.syncHeld } }
                let fails = disk.disk.withLock { d in
                    d.heldSyncWaiting = false
                    return d.heldSyncFails
                }
                if fails {
                    throw JournalError(.io, file: disk.path, message: "fdatasync: input/output error (simulated)")
                }
            }
            try disk.disk.withLock { d throws(JournalError) in
                try disk.io(&d)
                if var node = d.inodes[inode] {
                    node.durable = node.current
                    node.pending = []
                    d.inodes[inode] = node
                }
            }
        }

        func close() {}
    }
}
