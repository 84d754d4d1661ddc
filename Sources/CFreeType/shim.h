#ifndef WORKFEED_CFREETYPE_SHIM_H
#define WORKFEED_CFREETYPE_SHIM_H

/* Debian's libfreetype-dev; its headers live in /usr/include/freetype2 (pkg-config freetype2). */
#include <ft2build.h>
#include FT_FREETYPE_H

#endif
