#ifndef WORKFEED_CLIBWEBP_SHIM_H
#define WORKFEED_CLIBWEBP_SHIM_H

/* Debian's libwebp-dev: the WebP pictures phones are sent (docs/rendering.md, "WebP"). */
#include <webp/encode.h>
#include <webp/decode.h>

/* WebPConfigInit, WebPPictureInit and WebPGetEncoderVersion's ABI check are static inline over
   WEBP_ENCODER_ABI_VERSION; these are the calls Swift makes. */
static inline int wf_webp_config_init(WebPConfig *config) {
    return WebPConfigInit(config);
}

static inline int wf_webp_picture_init(WebPPicture *picture) {
    return WebPPictureInit(picture);
}

/* The writer libwebp calls with each piece of the encoded stream, appending to a memory writer. */
static inline void wf_webp_use_memory_writer(WebPPicture *picture, WebPMemoryWriter *writer) {
    WebPMemoryWriterInit(writer);
    picture->writer = WebPMemoryWrite;
    picture->custom_ptr = writer;
}

#endif
