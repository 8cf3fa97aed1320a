// The operations are all static inline in the header; the delivery pass numbers live here.
#include "StatecraftAtomics.h"

uint64_t sc_delivery_pass_next_value = 1;
uint64_t sc_delivery_pass_current_value = 0;
