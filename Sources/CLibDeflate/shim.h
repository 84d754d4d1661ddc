#ifndef WORKFEED_CLIBDEFLATE_SHIM_H
#define WORKFEED_CLIBDEFLATE_SHIM_H

/* Debian's libdeflate-dev: whole-buffer DEFLATE/zlib compression, several times faster than zlib. */
#include <libdeflate.h>

#endif
