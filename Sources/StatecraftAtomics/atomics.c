// The operations are all static inline in the header; the delivery pass numbers and the
// main queue's key live here.
#include "StatecraftAtomics.h"

uint64_t sc_delivery_pass_next_value = 1;
uint64_t sc_delivery_pass_current_value = 0;
uint64_t sc_held_mark_value = 0;
uint64_t sc_checks_slow_reduction_value = 16000000;  // a frame at 60 Hz
uint64_t sc_checks_storm_limit_value = 1000;
uint64_t sc_main_queue_key_value = 0;
uint64_t sc_plain_action_types[64] = {0};
_Thread_local sc_reducing_t sc_reducing_value = {0, 0};
_Thread_local int sc_not_present_value = 0;
const char sc_selecting_marker_value = 0;

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#if __has_include(<linux/futex.h>)
#include <linux/futex.h>
#else
// The kernel's values, for a C library whose headers lack the kernel's (a static SDK).
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#endif

// Marks the word held with sleepers and sleeps until it was free; the thread that frees a word
// marked so wakes one sleeper, which marks it again, since others may still sleep.
void sc_word_lock_wait(uint32_t *word) {
  while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
  }
}

void sc_word_lock_wake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif
