#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Asks the CPU to bring the cache line holding `address` close, for writing where the target can
/// say so (below), without waiting for it. Swift has no prefetch instruction of its own; a load
/// would block the pipeline until the line arrives, which is exactly what the batched reservation
/// path avoids.
///
/// On x86 the write hint takes effect only where the compile target has PRFCHW, which the default
/// x86-64 target lacks: there this is `prefetcht0`, a read. Written out as `prefetchw` it made no
/// difference beyond the noise in an experiment recorded in
/// docs/performance/history-2026-11-scheduler.md, so the builtin stays.
static inline void slot_scheduler_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// Tells the CPU this thread is spinning on a lock (x86 `pause`, Arm `yield`): it saves power
/// and lets the other hyperthread of the core run. Swift has no such hint either.
static inline void slot_scheduler_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

#endif
