// What one durable append costs on this disk, without the store: threads append small records
// to one zero-filled (preallocated) file and make each durable before the next, as a journal's
// callers would. Prints throughput and the latency distribution of one append + sync.
//
//   cc -O2 -pthread -o sync-latency sync-latency.c
//   sync-latency DIR METHOD THREADS SECONDS [spin]
//     METHOD: fdatasync (write, then fdatasync), dsync (O_DSYNC write), direct (O_DIRECT|O_DSYNC,
//             one 4 KiB block per append), direct-fdatasync (O_DIRECT write, then fdatasync)
//     spin:   one more thread spins on the CPU meanwhile (does a busy CPU change the latency?)
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { RECORD = 128, BLOCK = 4096, MAX_SAMPLES = 1 << 20 };
static int fd, method, direct;
static double seconds;
static atomic_long position, count, stop;
static double samples[MAX_SAMPLES];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *append(void *unused) {
    (void)unused;
    char *buffer;
    if (posix_memalign((void **)&buffer, BLOCK, BLOCK)) exit(1);
    memset(buffer, 'x', BLOCK);
    double end = now() + seconds;
    while (now() < end) {
        size_t size = direct ? BLOCK : RECORD;
        long at = atomic_fetch_add(&position, (long)size);
        double began = now();
        if (pwrite(fd, buffer, size, at) != (ssize_t)size) { perror("pwrite"); exit(1); }
        if ((method == 0 || method == 3) && fdatasync(fd) != 0) { perror("fdatasync"); exit(1); }
        long n = atomic_fetch_add(&count, 1);
        if (n < MAX_SAMPLES) samples[n] = now() - began;
    }
    return NULL;
}

static void *spin(void *unused) {
    (void)unused;
    while (!atomic_load(&stop)) {}
    return NULL;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *methods[] = {"fdatasync", "dsync", "direct", "direct-fdatasync"};
    if (argc < 5) { fprintf(stderr, "usage: %s DIR METHOD THREADS SECONDS [spin]\n", argv[0]); return 64; }
    method = -1;
    for (int m = 0; m < 4; m++) if (strcmp(argv[2], methods[m]) == 0) method = m;
    int threads = atoi(argv[3]);
    seconds = atof(argv[4]);
    if (method < 0 || threads < 1 || threads > 64) { fprintf(stderr, "bad method or thread count\n"); return 64; }
    direct = method >= 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/sync-latency.dat", argv[1]);
    // 64 MiB of written zeros, synced: appends overwrite allocated blocks, as the journal's do.
    int f = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    static char zeros[1 << 16];
    for (int i = 0; i < 1024; i++) if (write(f, zeros, sizeof zeros) != sizeof zeros) { perror("write"); return 1; }
    fsync(f);
    close(f);
    fd = open(path, O_RDWR | (method == 1 || method == 2 ? O_DSYNC : 0) | (direct ? O_DIRECT : 0));
    if (fd < 0) { perror("open"); return 1; }
    pthread_t spinner, workers[64];
    int spinning = argc > 5 && strcmp(argv[5], "spin") == 0;
    if (spinning) pthread_create(&spinner, NULL, spin, NULL);
    for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, append, NULL);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    atomic_store(&stop, 1);
    if (spinning) pthread_join(spinner, NULL);
    long n = atomic_load(&count), kept = n < MAX_SAMPLES ? n : MAX_SAMPLES;
    qsort(samples, kept, sizeof samples[0], compare);
    printf("%-16s threads %2d%s: %8.0f appends/s, latency p10 %.3f p50 %.3f p90 %.3f p99 %.3f ms\n", methods[method],
           threads, spinning ? " +spin" : "", n / seconds, samples[kept / 10] * 1e3, samples[kept / 2] * 1e3,
           samples[kept * 9 / 10] * 1e3, samples[kept * 99 / 100] * 1e3);
    unlink(path);
    return 0;
}
