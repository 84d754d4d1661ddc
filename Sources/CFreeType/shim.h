#ifndef WORKFEED_CFREETYPE_SHIM_H
#define WORKFEED_CFREETYPE_SHIM_H

/* Debian's libfreetype-dev; its headers live in /usr/include/freetype2 (pkg-config freetype2). */
#include <ft2build.h>
#include FT_FREETYPE_H

/* Function-like and composite macros Swift cannot import, re-exported as constants and functions. */
static const FT_Int32 wf_ft_load_render_light = FT_LOAD_RENDER | FT_LOAD_TARGET_LIGHT;
/* Rotated glyphs (names along a street): hinting snaps to the glyph's own axes, which a rotation
   no longer lines up with the pixels, so the outline is drawn as designed. */
static const FT_Int32 wf_ft_load_render_unhinted = FT_LOAD_RENDER | FT_LOAD_NO_HINTING;
static const FT_Int32 wf_ft_load_no_hinting = FT_LOAD_NO_HINTING;

static inline int wf_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }
static inline int wf_ft_is_scalable(FT_Face face) { return FT_IS_SCALABLE(face) ? 1 : 0; }

#endif
