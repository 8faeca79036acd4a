// Internal to the FlowInterpolation target: the flow of one source pair, and the flow at an
// in-between time synthesised from it.
#pragma once

#include <deque>
#include <opencv2/core.hpp>

namespace slowpoke {

/// The flow between pictures A (time 0) and B (time 1), at the flow's resolution.
struct PairFlow {
    /// Where each pixel of A is in B, and each pixel of B in A (CV_32FC2, in flow pixels).
    cv::Mat forward, backward;
    /// How far each pixel's round trip A → B → A (or B → A → B) misses home, in flow pixels
    /// (CV_32F); large where the pixel is hidden in the other picture.
    cv::Mat forwardError, backwardError;
};

/// The buffers of one level of fillHoles' pyramid.
struct HoleLevel {
    cv::Mat maskChannels, weighted, smallValues, smallMask, up, holes;
};

/// flowAtTime's and roundTripError's buffers, kept from one pair or picture to the next by
/// their owner (an interpolator): allocated afresh each time they were fresh mappings whose pages
/// the kernel zeroed (the CLI sets glibc's mmap threshold at 128 KB, and a 320x180 two-channel
/// flow is 450 KB). A deque: a level stays where it is while deeper ones are added.
struct TimeFlowScratch {
    cv::Mat mask, map, back;
    std::deque<HoleLevel> levels;
};

/// What the picture at time t is made of, per flow pixel: `fromA` is the A → B flow of the
/// pixel of A seen there (sample A at x - t × fromA), `fromB` that of the pixel of B (sample B
/// at x + (1 - t) × fromB) (both CV_32FC2). Pixels of both pictures are splatted forward to
/// time t; where several land on one place the one whose round trip is most consistent wins
/// (an occluder over what it hides); where only one picture's pixels land, both sides take its
/// flow; where both do, both take the mean of the two flows weighed by their round trips (two
/// estimates of one motion: sampling both pictures along one flow keeps their edges in
/// register; on the bench's footage corpus +0.06 dB on the mean, every clip gaining
/// 0.01-0.15); places nothing lands on take their neighbours' values. The two warped pictures
/// are then mixed by time, (1 - t) of A and t of B, except where one side's splats leave a
/// wide hole (occlusionShare): weighting them by the round trips instead (a pixel hidden in
/// the other picture taken from one side only) scored 0.2 dB lower on the bench's real-footage
/// corpus, where the round trip fails on motion blur and fine texture far more often than on a
/// true occlusion.
///
/// `errorA` and `errorB` (CV_32F) receive the round-trip error of the pixel of A (of B) that
/// won each place, infinity where no pixel of that picture landed: what OcclusionShare reads.
void flowAtTime(const PairFlow &flow, float t, cv::Mat &fromA, cv::Mat &fromB, cv::Mat &errorA, cv::Mat &errorB,
                TimeFlowScratch &scratch);

/// Fills the pixels of `values` whose `mask` (CV_32F) is 0 from their surroundings, coarse to
/// fine (push-pull); `scratch.levels[level]` and deeper hold the pyramid's buffers.
void fillHoles(cv::Mat &values, const cv::Mat &mask, TimeFlowScratch &scratch, size_t level = 0);

/// The round-trip error of `forward` against `backward` (see PairFlow) into `error`, with
/// `scratch.map` and `scratch.back` for buffers.
void roundTripError(const cv::Mat &forward, const cv::Mat &backward, cv::Mat &error, TimeFlowScratch &scratch);

}
