// Internal to the FlowInterpolation target: which of the two source pictures each place of the
// in-between picture should be taken from, where one of them does not see it.
#pragma once

#include <opencv2/core.hpp>

namespace slowpoke {

/// occlusionShare's buffers, kept by their owner from one picture to the next (see
/// TimeFlowScratch).
struct OcclusionScratch {
    cv::Mat hole, opened, unblurred, seenA, seenB;
};

/// The share of picture B in the flow's picture at time `t`, per flow pixel (CV_32F, 0...1):
/// t where both pictures see the place, towards 0 where only A sees it (what B covers) and
/// towards 1 where only B does (what A covers), softened over a few pixels. `errorA` and
/// `errorB` are flowAtTime's: the round-trip error of each side's pixel that landed there,
/// infinity where none did. See OcclusionShare.cpp.
void occlusionShare(const cv::Mat &errorA, const cv::Mat &errorB, float t, cv::Mat &shareB, OcclusionScratch &scratch);

}
