#ifndef WORKFEED_CHARFBUZZ_SHIM_H
#define WORKFEED_CHARFBUZZ_SHIM_H

/* Debian's libharfbuzz-dev: text shaping (map labels). hb-ft.h builds HarfBuzz fonts on the
   FreeType faces the renderer already opens, so both see the same font file at the same size. */
#include <hb.h>
#include <hb-ft.h>

#endif
