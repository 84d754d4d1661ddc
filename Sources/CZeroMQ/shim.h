#ifndef WORKFEED_CZEROMQ_SHIM_H
#define WORKFEED_CZEROMQ_SHIM_H

#include <zmq.h>
#include <errno.h>

/* Macros Swift cannot import, re-exported as constants. */
static const int wf_zmq_dontwait = ZMQ_DONTWAIT;
static const int wf_zmq_sndmore = ZMQ_SNDMORE;
static const short wf_zmq_pollin = ZMQ_POLLIN;
static const short wf_zmq_pollout = ZMQ_POLLOUT;

static inline int wf_errno(void) { return errno; }

#endif
