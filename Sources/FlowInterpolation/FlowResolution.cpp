// How far the flow's luma is scaled down (see FlowResolution.hpp).
#include "FlowResolution.hpp"

#include <algorithm>

#include "FlowInterpolation.h"

namespace slowpoke {

namespace {

/// The flow's luma is at most `fastFlowWidth` pixels wide at SP_FLOW_QUALITY_FAST, which costs
/// DIS a fraction of full resolution and little quality: on the bench's 720p footage (before
/// encoding) flow at a quarter of the size scored 32.26 dB, at a third 32.59 dB for 26% more CPU
/// time in all, at half 32.83 dB and at full size 32.85 dB (the pair's flow there took about 3
/// and 15 times as long, timed on a busy machine). On the footage corpus (bench/frame_drop.py)
/// a wider flow does not pay: at most 400 pixels (vtest's 768 px at a half instead of a third)
/// vtest +0.26 -> +0.15 dB, 44 ms a frame instead of 28; at most 640 (all at full size) box
/// +0.20, cup +0.05, bikes +0.29, vtest -0.11, tree and carphone unchanged, 3 times the CPU;
/// at most 192, vtest +0.06 but box -0.36, cup -0.07, bikes -0.13.
constexpr int fastFlowWidth = 320;
/// At SP_FLOW_QUALITY_HIGH at most `highFlowWidth` pixels wide: pictures up to 640 wide keep
/// their full size; wider ones are halved. The surveillance clip (vtest, 768x576, noisy, small
/// pedestrians) scored +0.04 dB over minterpolate at full size and +0.18 at half, for a third
/// of the CPU (145 -> 49 ms a frame); the other clips are 640 or narrower (unchanged). On 720p
/// footage half costs 0.02 dB (above) for about a quarter of DIS's time.
constexpr int highFlowWidth = 640;

}

int flowDivisor(int width, int quality) {
    const int widest = quality == SP_FLOW_QUALITY_HIGH ? highFlowWidth : fastFlowWidth;
    return std::max(1, (width + widest - 1) / widest);
}

}
