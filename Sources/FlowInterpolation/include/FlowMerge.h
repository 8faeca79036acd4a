// Merging neighbouring pictures onto one to lower its noise (`slowpoke still --merge`): each
// neighbour is aligned to the reference by dense optical flow (OpenCV's DIS) and averaged in
// where it agrees with the reference. Opened by Export with dlopen, as FlowInterpolation.h is.
#ifndef SLOWPOKE_FLOW_MERGE_H
#define SLOWPOKE_FLOW_MERGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Merges `count` planar YUV 4:2:0 pictures of `width` x `height` luma samples (8-bit, or
/// 10-bit in two little-endian bytes) into `out`. Picture 0 is the reference: the result shows
/// its content at its place. `planes` holds 3 pointers per picture (Y, U, V) and `strides` 3
/// strides in bytes per picture. A pixel of a neighbour counts in proportion to how well it
/// matches the reference after alignment (none where it moved differently or was hidden), so
/// the result never shows a neighbour's content the reference lacks. `used`, when not null,
/// receives the mean weight the neighbours got (0: none counted, 1: all fully).
/// Returns the codes of FlowInterpolation.h; `error` (of `errorSize` bytes) says what failed.
int sp_flow_merge(int width, int height, int bitDepth, int count,
                  const uint8_t *const *planes, const int *strides,
                  uint8_t *const out[3], const int outStride[3],
                  double *used, char *error, int errorSize);

#ifdef __cplusplus
}
#endif

#endif
