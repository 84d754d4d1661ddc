#ifndef WORKFEED_CLIBPNG_SHIM_H
#define WORKFEED_CLIBPNG_SHIM_H

#include <png.h>
#include <zlib.h>

/* Function-like and composite macros Swift cannot import, re-exported as constants. */
static const png_uint_32 wf_png_format_rgba = PNG_FORMAT_RGBA;
static const png_uint_32 wf_png_format_rgb = PNG_FORMAT_RGB;
static const png_uint_32 wf_png_image_version = PNG_IMAGE_VERSION;
static const png_uint_32 wf_png_image_flag_fast = PNG_IMAGE_FLAG_FAST;

#endif
