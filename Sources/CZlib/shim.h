#ifndef WORKFEED_CZLIB_SHIM_H
#define WORKFEED_CZLIB_SHIM_H

#include <zlib.h>

/* inflateInit2 is a macro Swift cannot call. */
static inline int wf_inflate_init_raw(z_streamp stream) { return inflateInit2(stream, -MAX_WBITS); }

#endif
