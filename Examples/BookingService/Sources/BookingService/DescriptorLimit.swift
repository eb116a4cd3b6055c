#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
enum DescriptorLimit {
    /// Raises the soft limit to the hard one (capped at 2^20, and on Darwin at `OPEN_MAX`), as
    /// servers do at start: many systems default the soft limit to 1,024. Returns the soft
    /// limit in force afterwards, or nil when it cannot be read.
    static func raised() -> Int? {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return nil }
        var wanted = min(limit.rlim_max, 1 << 20)
        #if canImport(Darwin)
        wanted = min(wanted, rlim_t(OPEN_MAX))
        #endif
        if wanted > limit.rlim_cur {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(resourceNumber, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    private static var resourceNumber: Int32 {
        #if canImport(Glibc)
        Int32(RLIMIT_NOFILE.rawValue)
        #else
        RLIMIT_NOFILE
        #endif
    }

    /// The connections to allow under a descriptor limit: a quarter of it (at most 256) is kept
    /// for everything else, the listening socket, the event loops' descriptors, the journal's
    /// files, and for connections closed to make room whose descriptors are not yet released.
    static func connectionCapacity(descriptorLimit: Int) -> Int {
        max(1, descriptorLimit - min(256, descriptorLimit / 4))
    }
}
