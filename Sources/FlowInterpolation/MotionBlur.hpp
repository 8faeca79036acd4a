// Internal to the FlowInterpolation target: the in-between picture blurred along its motion
// where the flow is unsure of it.
//
// Where a subject moves fast and the flow's two warped pictures disagree (a walker's limbs, which
// the smooth flow field follows only roughly; leaves in wind), each warped picture puts the
// subject's edges in a slightly wrong place. Averaging each warped picture's sample with two
// more along the pair's motion, at +-`blurReach` of it, spreads those edges the way the camera's
// shutter blurs them, and an edge in a doubtful place costs less spread than sharp. The share
// taken from those two samples grows with the motion (1 - stillness: m^2 / (1 + m^2), m the
// motion over blurSpeed) and with the warped pictures' disagreement (1 - regionTrust's sharpness,
// scaled to 0...1); at most 2/3 (the three samples' mean).
//
// On the bench's real-footage corpus (bench/frame_drop.py, dB over minterpolate), with the
// slope gate (`steepest`) FlowInterpolationTests' bar needs: fast: vtest +0.26 -> +0.33, tree
// +0.13 -> +0.18, cup +0.07 -> +0.10, box +1.33, bikes +1.97 and carphone +0.39 unchanged, mean
// +0.69 -> +0.72; high quality (with Lanczos sampling): vtest +0.04 -> +0.14, tree +0.12 ->
// +0.16, cup +0.12 -> +0.15, box +1.53 -> +1.59, carphone +0.38 -> +0.40, bikes +2.51 -> +2.48,
// mean +0.79 -> +0.82. Without the gate: fast vtest +0.58, cup +0.14, tree +0.19 (mean +0.76),
// high vtest +0.46 (mean +0.87). CPU a frame about 5% more (box 30.3 -> 31.7 ms). Measured
// before the gate and dropped: the same blur by motion alone (not gated by the disagreement),
// reach 1/8: vtest +0.52 but box -0.05; reach 1/4: vtest +0.68 but cup -1.06 (the rigid cup smeared over the wall);
// gated by the disagreement alone (not by the motion): box -0.29 at reach 1/4; by both at 1/4:
// bikes -0.06, at 1/8 vtest +0.48 only, at 5/16 cup and bikes -0.1; the motion at which the share
// is half (8 luma pixels, blurSpeed) at 4, 6, 12 or 16: within 0.01 on the mean, with
// box or vtest lower; the share x3/4 or x3/2: vtest -0.06 or +0.08 but bikes +0.03 or -0.09; two
// more samples at +-1/4 or 3/8 (5 in all): bikes -0.06, cup -0.04 or -0.13; the reach growing
// with the disagreement: cup -0.02 to -0.03, bikes -0.03 to -0.09; the same samples across the
// motion instead of along it: vtest +0.37 instead of +0.58, cup 0 (half of each: vtest +0.54):
// the gain is the motion's; gated by each pixel's |warpedA - warpedB| (box-filtered 5 or 9
// pixels) instead of the region's: cup +0.07 or +0.09 instead of +0.14; by the motion relative to
// its surroundings (63-pixel mean taken away): vtest +0.34 to +0.43. Where cup's gain comes from:
// two of its dropped frames (49 and 95) are far more blurred than both neighbours (the cup at its
// fastest) and carry a third of its squared error (MSE 95-114 against 2-15 for the rest, and
// minterpolate's 101-112); the blur cuts theirs by 6-9% and costs most other frames 1-10%. A
// second, ungated share (2/3 x (1 - stillness at 40 or 64 pixels)) for those: cup +0.04 or
// +0.01, bikes -0.04 or -0.02 (mean +0.002), dropped. With the blur on, these were measured
// again, none gaining on the mean without a loss of over 0.05 somewhere: RegionTrust's margin
// 1.2 or 2 (vtest +0.04 or -0.05, bikes -0.04 or +0.03), regions of 8 or 32 (cup -0.05, vtest
// -0.06), sharpness halved at 4 or 9 levels (box -0.11 or +0.06, vtest +0.03 or -0.03);
// OcclusionShare softened over 7 or 31 (within 0.02); the bicubic share x1.5 (box +0.10, tree
// -0.03) or squared sharpness (box -0.15, tree +0.02).
#pragma once

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>

#include "Bilinear.hpp"

namespace slowpoke {

/// The motion (luma pixels over the pair) at which the bicubic share of warpPlane's samples is
/// halved: a fast subject is blurred in the missing picture as in its neighbours (the dark cup,
/// cup.mp4). Against half bilinear, half bicubic everywhere, the bicubic share regionTrust's
/// sharpness times `stillness` scored box +0.18 dB, vtest +0.03, carphone +0.02, cup and tree
/// +0.01, bikes 0 (mean +0.04); without the motion term cup lost 0.03; a sharpness floor of 0 or
/// 1/2 instead of 1/4, or speeds of 4 or 6: within 0.02 on the mean, with a loss somewhere.
constexpr float blurSpeed = 8.0f;

/// 1 / (1 + (|motion| / blurSpeed)^2): 1 for a still place, 1/2 at blurSpeed.
inline float stillness(cv::Vec2f motion) {
    return 1.0f / (1.0f + (motion[0] * motion[0] + motion[1] * motion[1]) * (1.0f / (blurSpeed * blurSpeed)));
}

/// The two extra samples lie this far either side along the pair's motion (a fraction of it).
constexpr float blurReach = 0.1875f;

/// The slope along the motion (8-bit levels a luma pixel) at which the share is halved: a
/// sharp edge across the motion is where the flow put it, a soft one may be a blurred subject.
/// FlowInterpolationTests' white bar (40 pixels, moving 8 a frame over a panning texture) must
/// land within a pixel of its place and keep its width within 2: without this its edges, in a
/// region the occlusion strips beside them make disagree, softened below the test's threshold
/// (14 of 87 in-between frames off by 2 pixels; gated by each pixel's |warpedA - warpedB| or a
/// reach of 1/8: off by exactly 1, the test's limit, dropped). At 6 no frame is off; it keeps a
/// part of the gain (vtest +0.33 instead of +0.58, cup +0.10 instead of +0.14): at 4 the same
/// within 0.02, at 8 or more frames off by 1 pixel; gated by the round trips, frames still off.
/// The test of the uncovered strips beside a faster bar, replayed on raw frames: luma 23.92 ->
/// 24.08 dB fast, 22.84 -> 22.92 high (without the gate 23.78 and 22.65).
constexpr float steepest = 6.0f;

/// Under this share the samples along the motion are not taken: at 0 they cost a fifth more CPU
/// a frame (box 30.3 -> 36.7 ms) for the same scores within 0.01 dB.
constexpr float blurless = 1.0f / 64;

/// The share of the samples along the motion in a warped picture's value, from `still`
/// (the motion's stillness) and regionTrust's `sharpness`
/// (1/4 where the warped pictures differ most, 1 where they agree).
inline float motionBlurShare(float still, float sharpness) {
    return (2.0f / 3.0f) * (1 - still) * (1 - sharpness) * (4.0f / 3.0f);
}

/// The two samples' offsets along the motion (+-blurReach of it) and the divisor of the slope
/// between them: the same for A's and B's warped picture at a pixel, so worked out once for both
/// (the same arithmetic as when each call did it: the same bytes).
struct BlurStep {
    float dx, dy, run;
};

template <typename T>
inline BlurStep blurStep(cv::Vec2f motion) {
    // 8-bit levels in the plane's (10-bit pictures come in uint16_t planes, as in regionTrust).
    constexpr float levels = sizeof(T) == 1 ? 1.0f : 4.0f;
    const float dx = blurReach * motion[0], dy = blurReach * motion[1];
    return {dx, dy, 2 * std::sqrt(dx * dx + dy * dy) * levels * steepest + 1e-3f};
}

/// `value` (the warped picture's sample at `at` in `plane`) moved `share` of the way to the
/// mean of the two samples at +-blurReach of the motion from it (`step`, blurStep's), the share
/// divided by 1 + (slope / steepest)^2, the slope being the picture's between those two samples.
template <typename T>
inline float blurredAlongMotion(const cv::Mat &plane, cv::Vec2f at, const BlurStep &step, float value, float share) {
    const float behind = bilinearAt<T>(plane, at[0] - step.dx, at[1] - step.dy);
    const float ahead = bilinearAt<T>(plane, at[0] + step.dx, at[1] + step.dy);
    const float slope = std::abs(ahead - behind) / step.run;
    return value + share / (1 + slope * slope) * (0.5f * (behind + ahead) - value);
}

}
