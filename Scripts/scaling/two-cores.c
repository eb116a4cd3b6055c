// How well can two threads scale on this machine, with nothing shared? The ceiling for the
// `Scheduler.attempt, 2 threads` benchmarks. Each thread runs the same work on its own data:
//   compute   one chain of dependent shifts (latency-bound, no memory);
//   compute6  six independent chains (throughput-bound: two hyperthreads of one core share it);
//   memory    independent random reads and writes over its own 64 MiB (many misses in flight).
// Prints, for each, the work per second of 2 threads over 1 (best of 3): 2.0 is perfect scaling.
// Run it on a quiet machine (load average well below the core count):
//   cc -O2 -pthread Scripts/scaling/two-cores.c -o /tmp/two-cores && /tmp/two-cores
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { computeSteps = 400000000, memorySteps = 40000000, words = 1 << 23 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *compute(void *out) {
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < computeSteps; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    *(uint64_t *)out = x;
    return NULL;
}

static void *computeWide(void *out) {
    uint64_t x = 88172645463325252ull, y = 1, z = 2, w = 3, v = 4, u = 5;
    for (long i = 0; i < computeSteps; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        y ^= y << 13; y ^= y >> 7; y ^= y << 17;
        z ^= z << 13; z ^= z >> 7; z ^= z << 17;
        w ^= w << 13; w ^= w >> 7; w ^= w << 17;
        v ^= v << 13; v ^= v >> 7; v ^= v << 17;
        u ^= u << 13; u ^= u >> 7; u ^= u << 17;
    }
    *(uint64_t *)out = x ^ y ^ z ^ w ^ v ^ u;
    return NULL;
}

/// Each thread's 64 MiB, filled before any timing: page faults are not what is measured.
static uint64_t *arrays[2];

static void *memory(void *slot) {
    uint64_t *a = arrays[*(uint64_t *)slot], x = 88172645463325252ull, sum = 0;
    for (long i = 0; i < memorySteps; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t *w = &a[x & (words - 1)];
        sum += *w;
        *w = (sum ^ x) & (words - 1);
    }
    *(uint64_t *)slot = sum;
    return NULL;
}

static double run(void *(*body)(void *), int threads) {
    pthread_t t[2];
    uint64_t out[2] = {0, 1}; // in: the thread's array; out: a result, so no work is optimised away
    double start = now();
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, body, &out[i]);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return now() - start;
}

int main(void) {
    uint64_t x = 88172645463325252ull;
    for (int t = 0; t < 2; t++) {
        arrays[t] = malloc(words * sizeof(uint64_t));
        if (arrays[t] == NULL) return 1;
        for (long i = 0; i < words; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; arrays[t][i] = x & (words - 1); }
    }
    const char *names[] = {"compute", "compute6", "memory"};
    void *(*bodies[])(void *) = {compute, computeWide, memory};
    for (int k = 0; k < 3; k++) {
        double best1 = 1e9, best2 = 1e9;
        for (int r = 0; r < 3; r++) {
            double a = run(bodies[k], 1), b = run(bodies[k], 2);
            if (a < best1) best1 = a;
            if (b < best2) best2 = b;
        }
        printf("%-8s 1 thread %.3f s, 2 threads %.3f s: 2 threads do %.2fx the work per second of 1\n",
               names[k], best1, best2, 2 * best1 / best2);
    }
    return 0;
}
