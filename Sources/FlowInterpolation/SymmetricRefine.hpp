// Internal to the FlowInterpolation target: the flow at an in-between time corrected by a
// symmetric (bidirectional) block search at that time, the way minterpolate's me_mode=bidir
// searches, seeded by the flow.
#pragma once

#include <opencv2/core.hpp>

namespace slowpoke {

/// symmetricRefine's buffers (the blocks' corrections, and those at the flow's resolution), kept
/// by their owner from one picture to the next (see TimeFlowScratch).
struct RefineScratch {
    cv::Mat chosen, field;
};

/// Corrects `fromA` and `fromB` (flowAtTime's, at the flow's resolution) where both pictures
/// see the place (`shareB`, occlusionShare's at the flow's resolution, away from 0 and 1): for
/// blocks of luma at time `t` it picks the motion correction d (luma pixels over the pair) that
/// makes A sampled at mapA - t d and B at mapB + (1 - t) d agree best (`mapA`, `mapB`: luma's
/// sampling maps from buildMaps), among the neighbours' corrections, nearby blocks' motions and
/// half-pixel steps, and adds it, interpolated between block centres, to both fields. `a` and `b` are luma (CV_8U or CV_16U).
/// Returns whether it changed anything (the maps must then be built again). See
/// SymmetricRefine.cpp.
bool symmetricRefine(const cv::Mat &a, const cv::Mat &b, const cv::Mat &mapA, const cv::Mat &mapB, const cv::Mat &shareB,
                     float t, cv::Mat &fromA, cv::Mat &fromB, RefineScratch &scratch);

}
