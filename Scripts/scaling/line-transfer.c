// How long does a cache line take to move from one core to the other? Two threads hand one
// atomic word back and forth: each waits until the other has written it, then writes it. A round
// trip is two transfers of the line. This is what a `Scheduler` call pays when the other thread
// wrote its stripe's lock word or entry tail last (see the Concurrency article).
// Prints the round trip and one transfer in nanoseconds, best of 3:
//   cc -O2 -pthread Scripts/scaling/line-transfer.c -o /tmp/line-transfer && /tmp/line-transfer
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

enum { roundTrips = 2000000 };

// On its own 128-byte block, padded to the block's end, so no other data shares its line.
static struct {
    _Alignas(128) _Atomic long value;
    char padding[120];
} shared;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// Answers each odd value with the next even one.
static void *answer(void *unused) {
    (void)unused;
    for (long i = 0; i < roundTrips; i++) {
        while (atomic_load_explicit(&shared.value, memory_order_acquire) != 2 * i + 1) {}
        atomic_store_explicit(&shared.value, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

static double roundTrip(void) {
    atomic_store(&shared.value, 0);
    pthread_t other;
    if (pthread_create(&other, NULL, answer, NULL) != 0) return -1;
    double start = now();
    for (long i = 0; i < roundTrips; i++) {
        atomic_store_explicit(&shared.value, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&shared.value, memory_order_acquire) != 2 * i + 2) {}
    }
    double seconds = now() - start;
    pthread_join(other, NULL);
    return seconds * 1e9 / roundTrips;
}

int main(void) {
    double best = -1;
    for (int run = 0; run < 3; run++) {
        double ns = roundTrip();
        if (ns < 0) { fprintf(stderr, "cannot start a thread\n"); return 1; }
        if (best < 0 || ns < best) best = ns;
    }
    printf("round trip %.1f ns, one transfer %.1f ns\n", best, best / 2);
    return 0;
}
