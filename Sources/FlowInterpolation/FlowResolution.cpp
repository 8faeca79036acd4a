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
/// at most 192, vtest +0.06 but box -0.36, cup -0.07, bikes -0.13. Smaller with DIS's finest
/// scale 0 where scaled down: at most 240 wide box +0.11, cup +0.03, tree +0.01, bikes +0.14,
/// vtest -0.12 at 1.6 times the CPU; at most 213, bikes -0.36, vtest -0.12, the rest within 0.01.
constexpr int fastFlowWidth = 320;
/// At SP_FLOW_QUALITY_HIGH at most `highFlowWidth` pixels wide: pictures up to 640 wide keep
/// their full size; wider ones are halved. The surveillance clip (vtest, 768x576, noisy, small
/// pedestrians) scored +0.04 dB over minterpolate at full size and +0.18 at half, for a third
/// of the CPU (145 -> 49 ms a frame); the other clips are 640 or narrower (unchanged). On 720p
/// footage half costs 0.02 dB (above) for about a quarter of DIS's time. A finer DIS at the same
/// size did not pay either (dB, box cup tree vtest bikes carphone): its finest scale 0 instead of
/// the preset's 1, fast +.20 +.05 -.05 -.14 +.57 +.01 at 2.6 times the CPU, high (full size)
/// +.02 0 -.08 -.09 -.19 +.02 at 3.3 times; high's patches every pixel instead of every 2,
/// 0 0 -.12 +.02 -.01 0 at 2.4 times.
constexpr int highFlowWidth = 640;
/// Nor is the flow's luma ever under this many rows: OpenCV 4.6's DIS threw (a resize to an
/// empty size) on flows 7-13 rows high, so wide, short pictures (1920x40, 1280x48, 960x33 fast;
/// 1281x37 once high was halved) failed every pair; 16 rows (640x32 fast) worked.
constexpr int lowestFlow = 16;

}

int flowDivisor(int width, int height, int quality) {
    const int widest = quality == SP_FLOW_QUALITY_HIGH ? highFlowWidth : fastFlowWidth;
    return std::max(1, std::min((width + widest - 1) / widest, height / lowestFlow));
}

}
