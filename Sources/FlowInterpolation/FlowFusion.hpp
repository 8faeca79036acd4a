// Internal to the FlowInterpolation target: the flow at time t fused, region by region, with a
// smoothed candidate of itself where it fails to explain the pair (see FlowFusion.cpp).
#pragma once

#include <opencv2/core.hpp>

namespace slowpoke {

/// Mixes `fromA` and `fromB` (flowAtTime's, at the flow's resolution) half way toward their
/// smoothed selves in the regions where the two pictures warped along them still disagree by
/// `failing` levels or more and the motion is slow. `a` and `b` are the pair's luma at full
/// size (CV_8U, or CV_16U holding `depth` bits).
void fuseAtTime(const cv::Mat &a, const cv::Mat &b, int depth, float t, cv::Mat &fromA, cv::Mat &fromB);

}
