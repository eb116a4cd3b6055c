import Testing

@testable import SlotScheduler

/// `Scheduler.shard(of:)` multiplies by a stored reciprocal instead of dividing: it must be
/// `station % shards` for every shard count the scheduler accepts.
@Suite("Station to shard without a division")
struct ShardIndexTests {
    @Test(arguments: [1, 2, 3, 7, 16, 63, 64, 100, 1000, 4095, 4096])
    func shardIsStationModuloShards(shards: Int) throws {
        let scheduler = try Fixture.scheduler(shards: shards)
        #expect(scheduler.shardCount == shards)
        var stations: [Int32] = Array(0..<5000) + [Int32.max, Int32.max - 1, 1 << 30, 123_456_789]
        var state: UInt32 = 1
        for _ in 0..<5000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            stations.append(Int32(bitPattern: state >> 1))
        }
        for station in stations {
            #expect(scheduler.shard(of: station) == Int(station) % shards)
        }
    }
}
