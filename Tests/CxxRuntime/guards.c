// SPDX-License-Identifier: Apache-2.0
// The guards of function-local statics in Sources/CPrefsCxxRuntime/cxx_runtime.c, raced as the compiler's code
// calls them: many threads reach one uninitialized static at once; exactly one initializes it, the others wait
// until it is done and then see it; after an initializer gives up (__cxa_guard_abort, as when its initializer
// throws), another takes over. Run by scripts/check-linking.sh; exits 0 when every check holds, 1 naming the
// first that did not.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int __cxa_guard_acquire(uint64_t *guard);
void __cxa_guard_release(uint64_t *guard);
void __cxa_guard_abort(uint64_t *guard);

enum { threads = 16, rounds = 100, aborts = 3 };

static uint64_t guard;
static int value;
static atomic_int initializations;
static atomic_int finished_initializations;
static atomic_int wrong_values;
static atomic_int aborts_left;
static pthread_barrier_t start;

// What `static int value = compute();` compiles to; the first `aborts` initializers give up, and their thread tries
// again, as a caller that caught compute()'s exception would.
static void *reach_static(void *unused) {
    (void)unused;
    pthread_barrier_wait(&start);
    for (;;) {
        if (atomic_load_explicit((_Atomic(uint8_t) *)&guard, memory_order_acquire) != 0) break;
        if (!__cxa_guard_acquire(&guard)) break;
        atomic_fetch_add(&initializations, 1);
        usleep(100);  // a slow initializer, so that the others wait for it
        if (atomic_fetch_sub(&aborts_left, 1) > 0) {
            __cxa_guard_abort(&guard);
            continue;
        }
        value = 42;
        atomic_fetch_add(&finished_initializations, 1);
        __cxa_guard_release(&guard);
        break;
    }
    if (value != 42) atomic_fetch_add(&wrong_values, 1);
    return NULL;
}

int main(void) {
    for (int round = 0; round < rounds; round++) {
        guard = 0;
        value = 0;
        atomic_store(&initializations, 0);
        atomic_store(&finished_initializations, 0);
        atomic_store(&aborts_left, round % 2 == 0 ? 0 : aborts);
        pthread_barrier_init(&start, NULL, threads);
        pthread_t workers[threads];
        for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, reach_static, NULL);
        for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
        pthread_barrier_destroy(&start);
        int expected = round % 2 == 0 ? 1 : aborts + 1;
        if (atomic_load(&finished_initializations) != 1 || atomic_load(&initializations) != expected) {
            fprintf(stderr, "round %d: %d initializations (%d finished), expected %d (1 finished)\n", round,
                    atomic_load(&initializations), atomic_load(&finished_initializations), expected);
            return 1;
        }
        if (atomic_load(&wrong_values) != 0) {
            fprintf(stderr, "round %d: %d threads saw the static before it was initialized\n", round,
                    atomic_load(&wrong_values));
            return 1;
        }
        // Once initialized, acquire says so without initializing again.
        if (__cxa_guard_acquire(&guard) != 0) {
            fprintf(stderr, "round %d: an initialized guard was acquired again\n", round);
            return 1;
        }
    }
    printf("guards: %d rounds of %d threads, one initialization each, %d given up in every other round\n", rounds,
           threads, aborts);
    return 0;
}
