// In-between frames from dense optical flow (OpenCV's DIS), behind a small C API so that no
// OpenCV type reaches Swift. slowpoke's Export module opens the shared library built from this
// target with dlopen on first use (see FlowLibrary.swift); these declarations are the contract.
#ifndef SLOWPOKE_FLOW_INTERPOLATION_H
#define SLOWPOKE_FLOW_INTERPOLATION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SPFlowInterpolator SPFlowInterpolator;

/// Result codes.
enum {
    SP_FLOW_OK = 0,
    /// A null pointer, or t outside 0...1.
    SP_FLOW_BAD_ARGUMENT = 1,
    /// The picture is smaller than 32x32 pixels.
    SP_FLOW_BAD_SIZE = 2,
    /// The bit depth is neither 8 nor 10.
    SP_FLOW_BAD_DEPTH = 3,
    /// sp_flow_render before any sp_flow_set_pair.
    SP_FLOW_NO_PAIR = 4,
    /// OpenCV threw (out of memory, or a bug); sp_flow_last_error says what.
    SP_FLOW_FAILED = 5,
};

/// An interpolator for planar YUV 4:2:0 pictures of `width` x `height` luma samples (chroma
/// planes of (width + 1) / 2 x (height + 1) / 2), 8-bit (one byte a sample) or 10-bit (two
/// bytes, little-endian, low 10 bits). `threads` sets OpenCV's worker threads (0: one per core).
int sp_flow_create(int width, int height, int bitDepth, int threads, SPFlowInterpolator **out);

/// How much time the flow may take.
enum {
    /// Flow on luma scaled down to at most 320 pixels wide: `--frames interpolate`'s default.
    SP_FLOW_QUALITY_FAST = 0,
    /// Flow at full resolution, refined more: about three times the CPU time; on the bench's
    /// real-footage corpus (bench/frame_drop.py) 0.5 dB more on a fast pan, 0.2 on a hand-held
    /// close-up, 0.2 less on small fast subjects (0.1 more on the mean).
    SP_FLOW_QUALITY_HIGH = 1,
};

/// Sets the quality of the flow of every later pair (SP_FLOW_QUALITY_FAST until called);
/// call it before the first sp_flow_set_pair.
int sp_flow_set_quality(SPFlowInterpolator *interpolator, int quality);

/// Copies the two neighbouring source pictures (planes Y, U, V and their strides in bytes) and
/// computes the flow between them, both ways. Every render until the next pair reuses it.
int sp_flow_set_pair(SPFlowInterpolator *interpolator,
                     const uint8_t *const a[3], const int aStride[3],
                     const uint8_t *const b[3], const int bStride[3]);

/// Starts the flow of the next sp_flow_set_pair on `interpolator` from the flow of the pair
/// `previous` holds (which may be `interpolator` itself), instead of from nothing: for the pair
/// that follows it in the movie (its first picture the previous pair's second), whose motion
/// is much like it. DIS then keeps up with fast motion its coarsest scale misses from scratch:
/// on the bench's footage corpus a fast pan (bikes) scored 1.2 dB more (1.9 with
/// SP_FLOW_QUALITY_HIGH), the corpus mean 0.2 dB (0.3) (bench/results.md). Only the next
/// sp_flow_set_pair uses the seed; a pair judged unreliable (a cut, a flash) or whose flow has
/// another size seeds nothing. The caller decides which pair seeds which, so the result
/// depends only on the order of the calls, never on timing. `previous` is only read (the seed
/// is copied): no sp_flow_set_pair on it may run meanwhile. SP_FLOW_NO_PAIR when `previous`
/// has no pair.
int sp_flow_seed(SPFlowInterpolator *interpolator, const SPFlowInterpolator *previous);

/// Writes the picture at time `t` between the pair (0: the first, 1: the second) into `out`.
int sp_flow_render(SPFlowInterpolator *interpolator, double t, uint8_t *const out[3], const int outStride[3]);

/// 1 when the flow of the current pair was judged reliable, 0 when render falls back to the
/// nearer picture (a scene cut or a flash), -1 before any pair.
int sp_flow_pair_reliable(const SPFlowInterpolator *interpolator);

/// What the last SP_FLOW_FAILED was about; empty otherwise. Owned by the interpolator.
const char *sp_flow_last_error(const SPFlowInterpolator *interpolator);

void sp_flow_destroy(SPFlowInterpolator *interpolator);

#ifdef __cplusplus
}
#endif

// The merge of `slowpoke still --merge` (FlowMerge.cpp), in the same module.
#include "FlowMerge.h"

#endif
