// The operations are all static inline in the header; a C target needs one source file.
#include "StatecraftAtomics.h"
