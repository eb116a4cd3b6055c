#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Asks the CPU to bring the cache line holding `address` close, for writing, without waiting
/// for it. Swift has no prefetch instruction of its own; a load would block the pipeline until
/// the line arrives, which is exactly what the batched reservation path avoids.
static inline void slot_scheduler_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
