// Atomic operations on a 64-bit word, for Statecraft's engine.
//
// Synchronization.Atomic needs macOS 15 / iOS 18; these compiler builtins work on every system
// Statecraft supports, and ThreadSanitizer instruments them. Each ordering is its own function
// so that the ordering is a constant wherever Swift inlines the call.
#ifndef STATECRAFT_ATOMICS_H
#define STATECRAFT_ATOMICS_H

#include <stdint.h>

#define SC_LOAD(name, order) \
  static inline uint64_t sc_load_##name(const uint64_t *word) { \
    return __atomic_load_n(word, order); \
  }
#define SC_STORE(name, order) \
  static inline void sc_store_##name(uint64_t *word, uint64_t value) { \
    __atomic_store_n(word, value, order); \
  }
#define SC_EXCHANGE(name, order) \
  static inline uint64_t sc_exchange_##name(uint64_t *word, uint64_t value) { \
    return __atomic_exchange_n(word, value, order); \
  }
#define SC_FETCH_ADD(name, order) \
  static inline uint64_t sc_fetch_add_##name(uint64_t *word, uint64_t value) { \
    return __atomic_fetch_add(word, value, order); \
  }

SC_LOAD(relaxed, __ATOMIC_RELAXED)
SC_LOAD(acquire, __ATOMIC_ACQUIRE)
SC_LOAD(seq_cst, __ATOMIC_SEQ_CST)

SC_STORE(relaxed, __ATOMIC_RELAXED)
SC_STORE(release, __ATOMIC_RELEASE)
SC_STORE(seq_cst, __ATOMIC_SEQ_CST)

SC_EXCHANGE(relaxed, __ATOMIC_RELAXED)
SC_EXCHANGE(acquire, __ATOMIC_ACQUIRE)
SC_EXCHANGE(release, __ATOMIC_RELEASE)
SC_EXCHANGE(acq_rel, __ATOMIC_ACQ_REL)
SC_EXCHANGE(seq_cst, __ATOMIC_SEQ_CST)

#define SC_FETCH_OR(name, order) \
  static inline uint64_t sc_fetch_or_##name(uint64_t *word, uint64_t mask) { \
    return __atomic_fetch_or(word, mask, order); \
  }
#define SC_FETCH_AND(name, order) \
  static inline uint64_t sc_fetch_and_##name(uint64_t *word, uint64_t mask) { \
    return __atomic_fetch_and(word, mask, order); \
  }

SC_FETCH_OR(relaxed, __ATOMIC_RELAXED)
SC_FETCH_OR(seq_cst, __ATOMIC_SEQ_CST)
SC_FETCH_AND(relaxed, __ATOMIC_RELAXED)
SC_FETCH_AND(seq_cst, __ATOMIC_SEQ_CST)

SC_FETCH_ADD(relaxed, __ATOMIC_RELAXED)
SC_FETCH_ADD(acquire, __ATOMIC_ACQUIRE)
SC_FETCH_ADD(release, __ATOMIC_RELEASE)
SC_FETCH_ADD(acq_rel, __ATOMIC_ACQ_REL)
SC_FETCH_ADD(seq_cst, __ATOMIC_SEQ_CST)

// The number of the delivery pass in progress and of the next one (`DeliveryPass` in
// Engine/Delivery.swift). Touched only on the main queue, so plain variables.
extern uint64_t sc_delivery_pass_next_value;
extern uint64_t sc_delivery_pass_current_value;

static inline uint64_t sc_delivery_pass_current(void) { return sc_delivery_pass_current_value; }

static inline void sc_delivery_pass_resume(uint64_t pass) { sc_delivery_pass_current_value = pass; }

static inline uint64_t sc_delivery_pass_begin(void) {
  uint64_t pass = sc_delivery_pass_next_value++;
  sc_delivery_pass_current_value = pass;
  return pass;
}

// Whether the steps built from steps that a round ran last kept a value for their subscriber
// (`HeldMark` in Engine/Entries.swift). Touched only on the main queue, so a plain variable.
extern uint64_t sc_held_mark_value;

static inline void sc_held_mark_set(void) { sc_held_mark_value = 1; }

static inline void sc_held_mark_clear(void) { sc_held_mark_value = 0; }

static inline uint64_t sc_held_mark_take(void) {
  uint64_t held = sc_held_mark_value;
  sc_held_mark_value = 0;
  return held;
}

// The development checks of debug builds (`DevelopmentChecks`): the slowest a reduction on the
// main queue may be, in nanoseconds, and the most actions of one type a second; 0 switches a
// check off. C variables, so that the dispatch path reads them without `swift_once`; written
// rarely, by `StatecraftDiagnostics.developmentChecks`.
extern uint64_t sc_checks_slow_reduction_value;
extern uint64_t sc_checks_storm_limit_value;

static inline uint64_t sc_checks_slow_reduction(void) {
  return __atomic_load_n(&sc_checks_slow_reduction_value, __ATOMIC_RELAXED);
}

static inline uint64_t sc_checks_storm_limit(void) {
  return __atomic_load_n(&sc_checks_storm_limit_value, __ATOMIC_RELAXED);
}

static inline void sc_checks_set(uint64_t slow_reduction, uint64_t storm_limit) {
  __atomic_store_n(&sc_checks_slow_reduction_value, slow_reduction, __ATOMIC_RELAXED);
  __atomic_store_n(&sc_checks_storm_limit_value, storm_limit, __ATOMIC_RELAXED);
}

// Action types known not to be thunks (`StartedByTheStore`), by the address of their metadata:
// a direct-mapped cache of 64 words, so that every dispatch can ask "is this a thunk?" with a
// load and a compare, and pays a dynamic cast only for a type it has not seen in its slot.
// Process-wide, because the answer belongs to the type, not to a store; relaxed, because a lost
// or torn write only means a cast more.
extern uint64_t sc_plain_action_types[64];

static inline uint64_t *sc_plain_action_slot(uint64_t type) {
  return &sc_plain_action_types[(type >> 4) & 63];
}

static inline int sc_is_plain_action_type(uint64_t type) {
  return __atomic_load_n(sc_plain_action_slot(type), __ATOMIC_RELAXED) == type;
}

static inline void sc_note_plain_action_type(uint64_t type) {
  __atomic_store_n(sc_plain_action_slot(type), type, __ATOMIC_RELAXED);
}

// The main-queue check (`MainQueue.isCurrent`) asks libdispatch directly. Swift's
// `DispatchQueue.getSpecific` boxes the value and casts it back, and the store asks once per
// dispatch. libdispatch comes
// with every Swift toolchain; on Linux its header is not on a C target's search path, so the
// function is declared here as libdispatch declares it.
#if defined(__APPLE__)
#include <dispatch/dispatch.h>
#else
void *dispatch_get_specific(const void *key);
#endif

static inline int sc_queue_has_specific(const void *key) {
  return dispatch_get_specific(key) != 0;
}

// The address of the key `MainQueue` sets on the main queue, or 0 until it is set. Read on every
// dispatch, so a C variable: a Swift global is reached through `swift_once` on each access.
// Published with release and read with acquire, so a thread
// that reads the key also sees it set on the queue.
extern uint64_t sc_main_queue_key_value;

static inline uint64_t sc_main_queue_key(void) {
  return __atomic_load_n(&sc_main_queue_key_value, __ATOMIC_ACQUIRE);
}

static inline void sc_publish_main_queue_key(uint64_t key) {
  __atomic_store_n(&sc_main_queue_key_value, key, __ATOMIC_RELEASE);
}

// A hint to the processor that this thread is spinning: a dispatch waits this way while a round
// on the main queue runs its selectors under the state lock (`Reduction.waitForSelection`).
static inline void sc_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

// What the calling thread is reducing: the store's `Reduction` and the action, by address, or
// null. Thread-local, so that the check every store method makes ("is this thread running my
// reducer?", C11) and the marks around each reduction write no memory that another thread reads:
// as atomics in the store, they moved two more cache lines between cores on every dispatch
// under contention.
typedef struct {
  const void *reduction;
  const void *action;
} sc_reducing_t;

extern _Thread_local sc_reducing_t sc_reducing_value;

static inline const void *sc_reducing_reduction(void) { return sc_reducing_value.reduction; }

static inline const void *sc_reducing_action(void) { return sc_reducing_value.action; }

// Marks the start of a reduction on this thread, returning the mark it replaces (a reducer of
// one store may dispatch to another store, whose reduction nests).
static inline sc_reducing_t sc_begin_reducing(const void *reduction, const void *action) {
  sc_reducing_t previous = sc_reducing_value;
  sc_reducing_value.reduction = reduction;
  sc_reducing_value.action = action;
  return previous;
}

static inline void sc_end_reducing(sc_reducing_t previous) { sc_reducing_value = previous; }

// Whether the dispatch the calling thread made last left the store showing something other than
// its present state: a tool held the action, or shows a past state (the live page's jump). Set by
// the tool at the end of the middleware chain, read by middleware before it after `next`.
extern _Thread_local int sc_not_present_value;

static inline void sc_set_not_present(int value) { sc_not_present_value = value; }

static inline int sc_not_present(void) { return sc_not_present_value; }

// The mark's action while a notification round runs subscriptions' steps (selectors, filters)
// under the state lock: not an action's address, so that a store method called there stops
// with a message about selectors instead.
extern const char sc_selecting_marker_value;

static inline const void *sc_selecting_marker(void) { return &sc_selecting_marker_value; }

// The package's lock on Linux: one 32-bit word, 0 free, 1 held, 2 held with sleepers (Drepper,
// "Futexes Are Tricky", mutex 3). Taken with one compare-and-swap, let go with one exchange, both
// inline rather than behind glibc's calls; a thread that finds it held sleeps at once in the
// kernel, as glibc's mutex does. Compiled with this module, so ThreadSanitizer sees the acquire
// and the release; `Synchronization.Mutex`, in uninstrumented code, it would not.
#if defined(__linux__)
void sc_word_lock_wait(uint32_t *word);
void sc_word_lock_wake(uint32_t *word);

static inline void sc_word_lock(uint32_t *word) {
  uint32_t expected = 0;
  if (__builtin_expect(
        __atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED),
        1)) {
    return;
  }
  sc_word_lock_wait(word);
}

static inline void sc_word_unlock(uint32_t *word) {
  if (__builtin_expect(__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2, 0)) {
    sc_word_lock_wake(word);
  }
}
#endif

#endif
