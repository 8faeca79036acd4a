// Internal to the FlowInterpolation target: the in-between picture made from the flow at
// time t, one plane at a time: each plane's sampling maps (A warped back by t, B forward by
// 1 - t), then both pictures sampled along them and mixed (see warpPlane in PlaneWarp.cpp).
#pragma once

#include <cstdint>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "RegionTrust.hpp"

namespace slowpoke {

/// One plane's sampling maps and warped pictures (bilinear, and for luma also bicubic).
struct PlaneWork {
    cv::Mat mapA, mapB, warpedA, warpedB, sharpA, sharpB;
    /// mapA and mapB in OpenCV's fixed point (cv::convertMaps: whole pixels, and the index of
    /// the 1/32-pixel fraction), made once for the plane's remaps (see fixedMaps); `fixedStale`:
    /// buildMaps changed the maps since.
    cv::Mat fixedA, fractionA, fixedB, fractionB;
    bool fixedStale = true;
    /// How much of the flow's picture each pixel takes, and (luma) how much of it is sampled
    /// bicubically (see regionTrust).
    cv::Mat trust, sharpness;
    /// Luma's sharp sampling, bicubic or (high quality) Lanczos; B's share of the flow's
    /// picture at each pixel (see occlusionShare).
    int sharpSampling = cv::INTER_CUBIC;
    cv::Mat shareB;
    RegionScratch region;
};

/// The sampling maps of a plane of `size` from the fields at the flow's resolution (`fromA`,
/// `fromB`, `shareB`: see flowAtTime and occlusionShare), into `work`.
void buildMaps(PlaneWork &work, cv::Size size, const cv::Mat &fromA, const cv::Mat &fromB, const cv::Mat &shareB, float t);

/// One plane of the picture at time t, from the pair's planes `a` and `b` (CV_8U, or CV_16U
/// for 10-bit) along `work`'s maps, into `out` (rows `stride` bytes apart); `sharp` for luma,
/// which also sets `chroma`'s trust; values clamped to `maximum`.
void warpPlane(PlaneWork &work, const cv::Mat &a, const cv::Mat &b, float t, bool sharp, PlaneWork *chroma,
               float maximum, uint8_t *out, int stride);

}
