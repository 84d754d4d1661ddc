#ifndef WORKFEED_CTURBOJPEG_SHIM_H
#define WORKFEED_CTURBOJPEG_SHIM_H

/* libjpeg-turbo's TurboJPEG API (Debian's libturbojpeg0-dev): errors come back as return codes,
   not through setjmp/longjmp as in the classic libjpeg API, which Swift cannot call. */
#include <turbojpeg.h>

#endif
