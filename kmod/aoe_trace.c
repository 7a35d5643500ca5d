// SPDX-License-Identifier: GPL-2.0
/* The tracepoints of aoe_trace.h, defined once. */
#define CREATE_TRACE_POINTS
#include "aoe_trace.h"
