#ifndef WORKFEED_CZLIB_SHIM_H
#define WORKFEED_CZLIB_SHIM_H

#include <zlib.h>

/* inflateInit2 is a macro Swift cannot call. */
static inline int wf_inflate_init_raw(z_streamp stream) { return inflateInit2(stream, -MAX_WBITS); }

/* gzip streams (window bits 15, plus 16 for the gzip wrapper): the originals kept in the cache. */
static inline int wf_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int wf_inflate_init_gzip(z_streamp stream) { return inflateInit2(stream, MAX_WBITS + 16); }

#endif
