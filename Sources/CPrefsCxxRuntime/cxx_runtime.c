// SPDX-License-Identifier: Apache-2.0
//
// The C++ runtime functions that the statically linked Swift runtime calls, so that the executables do not load
// libstdc++ at start-up (docs/PACKAGING.md, "Linking and start-up").
//
// The Swift runtime is C++ and takes 25 functions from libstdc++. Loading libstdc++ costs every process the
// loader's binding of its 3,261 symbol relocations (vtables, typeinfo, its own calls), about 1.6 million
// instructions, two thirds of a whole `defaults read`, for functions a command seldom calls. So, for exactly the
// functions the runtime refers to (and __cxa_guard_abort, which completes the guards' protocol; one more that a new
// toolchain refers to would make libstdc++ NEEDED again, which scripts/check-linking.sh fails):
// - the ones the runtime calls on every start are defined here as libstdc++ defines them for a program that
//   throws no exceptions (the Swift runtime is built without them, so a throw would end in std::terminate):
//   operator new and delete on malloc, the guards of function-local statics, hardware_concurrency, and the
//   __throw_ functions and __cxa_pure_virtual, which end the process with libstdc++'s message;
// - the others (std::string's out-of-line members, the red-black tree and hash table helpers, __cxa_demangle) are
//   libstdc++'s own, reached through dlopen the first time one is called. libstdc++ stays a shared library that
//   Debian's updates reach; it is only loaded later, when needed.
//
// Compiled only where scripts/build-release.sh defines PREFERENCES_CXX_RUNTIME_ON_DEMAND: the executables linked
// with the static Swift runtime and without exported symbols, so that nothing else sees these definitions.
// Elsewhere (debug builds, tests, packages that depend on ours) this file is empty and libstdc++ is linked as usual.

#if defined(PREFERENCES_CXX_RUNTIME_ON_DEMAND) && defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

// The Itanium C++ ABI's names, given to C functions with the same parameters and results.
#define CXX_NAME(mangled) __asm__(mangled)

#define NORETURN __attribute__((noreturn))
#define USED __attribute__((used))

// Ends the process as libstdc++ does when an exception reaches std::terminate: the message, then SIGABRT.
NORETURN static void terminate_with(const char *message) {
    fprintf(stderr, "terminate called after %s\n", message);
    abort();
}

// MARK: Allocation

static void *allocate(size_t size) {
    void *memory = malloc(size == 0 ? 1 : size);
    if (memory == NULL) terminate_with("throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc");
    return memory;
}

static void *allocate_aligned(size_t size, size_t alignment) {
    // posix_memalign wants a multiple of sizeof(void *), as libstdc++ arranges.
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
    void *memory = NULL;
    if (posix_memalign(&memory, alignment, size == 0 ? 1 : size) != 0) {
        terminate_with("throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc");
    }
    return memory;
}

USED void *cxx_new(size_t size) CXX_NAME("_Znwm");
void *cxx_new(size_t size) { return allocate(size); }

USED void *cxx_new_aligned(size_t size, size_t alignment) CXX_NAME("_ZnwmSt11align_val_t");
void *cxx_new_aligned(size_t size, size_t alignment) { return allocate_aligned(size, alignment); }

USED void cxx_delete_sized(void *memory, size_t size) CXX_NAME("_ZdlPvm");
void cxx_delete_sized(void *memory, size_t size) {
    (void)size;
    free(memory);
}

USED void cxx_delete_sized_aligned(void *memory, size_t size, size_t alignment) CXX_NAME("_ZdlPvmSt11align_val_t");
void cxx_delete_sized_aligned(void *memory, size_t size, size_t alignment) {
    (void)size;
    (void)alignment;
    free(memory);
}

// MARK: Function-local statics

// The ABI's guard is 64 bits; the compiler's inline check reads its first byte (set once initialized). The second
// byte marks an initialization under way, which other threads wait for. One lock for all guards, as initializations
// are few and short.
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t guard_done = PTHREAD_COND_INITIALIZER;

static _Atomic(uint8_t) *guard_initialized(uint64_t *guard) { return (_Atomic(uint8_t) *)guard; }
static uint8_t *guard_in_progress(uint64_t *guard) { return (uint8_t *)guard + 1; }

USED int __cxa_guard_acquire(uint64_t *guard);
int __cxa_guard_acquire(uint64_t *guard) {
    if (atomic_load_explicit(guard_initialized(guard), memory_order_acquire) != 0) return 0;
    pthread_mutex_lock(&guard_lock);
    for (;;) {
        if (atomic_load_explicit(guard_initialized(guard), memory_order_acquire) != 0) {
            pthread_mutex_unlock(&guard_lock);
            return 0;
        }
        if (*guard_in_progress(guard) == 0) {
            *guard_in_progress(guard) = 1;
            pthread_mutex_unlock(&guard_lock);
            return 1;
        }
        pthread_cond_wait(&guard_done, &guard_lock);
    }
}

USED void __cxa_guard_release(uint64_t *guard);
void __cxa_guard_release(uint64_t *guard) {
    pthread_mutex_lock(&guard_lock);
    *guard_in_progress(guard) = 0;
    atomic_store_explicit(guard_initialized(guard), 1, memory_order_release);
    pthread_cond_broadcast(&guard_done);
    pthread_mutex_unlock(&guard_lock);
}

USED void __cxa_guard_abort(uint64_t *guard);
void __cxa_guard_abort(uint64_t *guard) {
    pthread_mutex_lock(&guard_lock);
    *guard_in_progress(guard) = 0;
    pthread_cond_broadcast(&guard_done);
    pthread_mutex_unlock(&guard_lock);
}

// MARK: Ends of the process

USED NORETURN void __cxa_pure_virtual(void);
void __cxa_pure_virtual(void) {
    fputs("pure virtual method called\n", stderr);
    terminate_with("a pure virtual call");
}

USED NORETURN void cxx_throw_bad_alloc(void) CXX_NAME("_ZSt17__throw_bad_allocv");
void cxx_throw_bad_alloc(void) { terminate_with("throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc"); }

USED NORETURN void cxx_throw_bad_array_new_length(void) CXX_NAME("_ZSt28__throw_bad_array_new_lengthv");
void cxx_throw_bad_array_new_length(void) {
    terminate_with("throwing an instance of 'std::bad_array_new_length'\n  what():  std::bad_array_new_length");
}

USED NORETURN void cxx_throw_bad_function_call(void) CXX_NAME("_ZSt25__throw_bad_function_callv");
void cxx_throw_bad_function_call(void) {
    terminate_with("throwing an instance of 'std::bad_function_call'\n  what():  bad_function_call");
}

USED NORETURN void cxx_throw_length_error(const char *what) CXX_NAME("_ZSt20__throw_length_errorPKc");
void cxx_throw_length_error(const char *what) {
    fprintf(stderr, "terminate called after throwing an instance of 'std::length_error'\n  what():  %s\n", what);
    abort();
}

// MARK: Threads

USED unsigned int cxx_hardware_concurrency(void) CXX_NAME("_ZNSt6thread20hardware_concurrencyEv");
unsigned int cxx_hardware_concurrency(void) {
    // As libstdc++: the processors online, 0 when unknown.
    int count = get_nprocs();
    return count > 0 ? (unsigned int)count : 0;
}

// MARK: libstdc++ on demand

static void *libstdcxx_function(const char *name) {
    static _Atomic(void *) library = NULL;
    void *handle = atomic_load_explicit(&library, memory_order_acquire);
    if (handle == NULL) {
        // dlopen is thread-safe and returns the same handle to every caller; RTLD_LOCAL keeps libstdc++'s symbols
        // out of the scope of libraries loaded later.
        handle = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *reason = dlerror();
            fprintf(stderr, "error: the C++ runtime (libstdc++.so.6) could not be loaded for %s: %s\n", name,
                    reason != NULL ? reason : "unknown error");
            abort();
        }
        atomic_store_explicit(&library, handle, memory_order_release);
    }
    void *function = dlsym(handle, name);
    if (function == NULL) {
        fprintf(stderr, "error: libstdc++.so.6 has no %s\n", name);
        abort();
    }
    return function;
}

// Each forwarder keeps the function it reached, so later calls cost one load and an indirect call.
#define ON_DEMAND(type, mangled)                                                                                   \
    static _Atomic(type) resolved = NULL;                                                                          \
    type function = atomic_load_explicit(&resolved, memory_order_acquire);                                         \
    if (function == NULL) {                                                                                        \
        function = (type)libstdcxx_function(mangled);                                                              \
        atomic_store_explicit(&resolved, function, memory_order_release);                                          \
    }

typedef void string;  // std::__cxx11::basic_string<char>, only ever behind a pointer
typedef void tree_node;  // std::_Rb_tree_node_base

#define STRING_MEMBER(suffix) "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE" suffix

USED int string_compare(const string *self, const char *other)
    CXX_NAME("_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareEPKc");
int string_compare(const string *self, const char *other) {
    typedef int (*compare_function)(const string *, const char *);
    ON_DEMAND(compare_function, "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE7compareEPKc")
    return function(self, other);
}

USED string *string_replace(string *self, size_t position, size_t length, const char *other, size_t other_length)
    CXX_NAME(STRING_MEMBER("10_M_replaceEmmPKcm"));
string *string_replace(string *self, size_t position, size_t length, const char *other, size_t other_length) {
    typedef string *(*replace_function)(string *, size_t, size_t, const char *, size_t);
    ON_DEMAND(replace_function, STRING_MEMBER("10_M_replaceEmmPKcm"))
    return function(self, position, length, other, other_length);
}

USED void string_construct(string *self, size_t count, char character) CXX_NAME(STRING_MEMBER("12_M_constructEmc"));
void string_construct(string *self, size_t count, char character) {
    typedef void (*construct_function)(string *, size_t, char);
    ON_DEMAND(construct_function, STRING_MEMBER("12_M_constructEmc"))
    function(self, count, character);
}

USED string *string_replace_aux(string *self, size_t position, size_t length, size_t count, char character)
    CXX_NAME(STRING_MEMBER("14_M_replace_auxEmmmc"));
string *string_replace_aux(string *self, size_t position, size_t length, size_t count, char character) {
    typedef string *(*replace_aux_function)(string *, size_t, size_t, size_t, char);
    ON_DEMAND(replace_aux_function, STRING_MEMBER("14_M_replace_auxEmmmc"))
    return function(self, position, length, count, character);
}

USED void string_reserve(string *self, size_t capacity) CXX_NAME(STRING_MEMBER("7reserveEm"));
void string_reserve(string *self, size_t capacity) {
    typedef void (*reserve_function)(string *, size_t);
    ON_DEMAND(reserve_function, STRING_MEMBER("7reserveEm"))
    function(self, capacity);
}

USED string *string_append(string *self, const char *other, size_t length) CXX_NAME(STRING_MEMBER("9_M_appendEPKcm"));
string *string_append(string *self, const char *other, size_t length) {
    typedef string *(*append_function)(string *, const char *, size_t);
    ON_DEMAND(append_function, STRING_MEMBER("9_M_appendEPKcm"))
    return function(self, other, length);
}

USED void string_assign(string *self, const string *other) CXX_NAME(STRING_MEMBER("9_M_assignERKS4_"));
void string_assign(string *self, const string *other) {
    typedef void (*assign_function)(string *, const string *);
    ON_DEMAND(assign_function, STRING_MEMBER("9_M_assignERKS4_"))
    function(self, other);
}

USED char *string_create(string *self, size_t *capacity, size_t old_capacity) CXX_NAME(STRING_MEMBER("9_M_createERmm"));
char *string_create(string *self, size_t *capacity, size_t old_capacity) {
    typedef char *(*create_function)(string *, size_t *, size_t);
    ON_DEMAND(create_function, STRING_MEMBER("9_M_createERmm"))
    return function(self, capacity, old_capacity);
}

USED void string_mutate(string *self, size_t position, size_t length, const char *other, size_t other_length)
    CXX_NAME(STRING_MEMBER("9_M_mutateEmmPKcm"));
void string_mutate(string *self, size_t position, size_t length, const char *other, size_t other_length) {
    typedef void (*mutate_function)(string *, size_t, size_t, const char *, size_t);
    ON_DEMAND(mutate_function, STRING_MEMBER("9_M_mutateEmmPKcm"))
    function(self, position, length, other, other_length);
}

USED string *string_append_c_string(string *self, const char *other) CXX_NAME(STRING_MEMBER("pLEPKc"));
string *string_append_c_string(string *self, const char *other) {
    typedef string *(*append_c_string_function)(string *, const char *);
    ON_DEMAND(append_c_string_function, STRING_MEMBER("pLEPKc"))
    return function(self, other);
}

USED tree_node *tree_decrement(tree_node *node) CXX_NAME("_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base");
tree_node *tree_decrement(tree_node *node) {
    typedef tree_node *(*decrement_function)(tree_node *);
    ON_DEMAND(decrement_function, "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base")
    return function(node);
}

USED void tree_insert_and_rebalance(bool left, tree_node *node, tree_node *parent, tree_node *header)
    CXX_NAME("_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_");
void tree_insert_and_rebalance(bool left, tree_node *node, tree_node *parent, tree_node *header) {
    typedef void (*insert_function)(bool, tree_node *, tree_node *, tree_node *);
    ON_DEMAND(insert_function, "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_")
    function(left, node, parent, header);
}

// std::pair<bool, std::size_t>, trivially copyable, so returned in two registers as this struct is.
typedef struct {
    bool rehash;
    size_t buckets;
} rehash_decision;

USED rehash_decision hash_need_rehash(const void *policy, size_t buckets, size_t elements, size_t inserted)
    CXX_NAME("_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm");
rehash_decision hash_need_rehash(const void *policy, size_t buckets, size_t elements, size_t inserted) {
    typedef rehash_decision (*rehash_function)(const void *, size_t, size_t, size_t);
    ON_DEMAND(rehash_function, "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm")
    return function(policy, buckets, elements, inserted);
}

USED char *__cxa_demangle(const char *name, char *buffer, size_t *length, int *status);
char *__cxa_demangle(const char *name, char *buffer, size_t *length, int *status) {
    typedef char *(*demangle_function)(const char *, char *, size_t *, int *);
    ON_DEMAND(demangle_function, "__cxa_demangle")
    return function(name, buffer, length, status);
}

#endif
