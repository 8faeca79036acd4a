#ifndef SLOWPOKE_CRUBBERBAND_SHIM_H
#define SLOWPOKE_CRUBBERBAND_SHIM_H

#include <rubberband/rubberband-c.h>

#endif
