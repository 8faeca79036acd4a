// Internal to the FlowInterpolation target: where the flow's picture is trusted, region by
// region, over the plain mix of the two pictures.
#pragma once

#include <opencv2/core.hpp>

namespace slowpoke {

/// regionTrust's per-region buffers, kept by their owner from one picture to the next.
struct RegionScratch {
    cv::Mat moved, still, weight, sharp;
};

/// How much of the flow's picture each pixel takes (CV_32F, 0...1, the size of `a`), the rest
/// being the plain mix of the two pictures unmoved, from how well the two warped pictures
/// (`warpedA`, `warpedB`) agree in each 16x16 region against how well the unmoved pictures `a`
/// and `b` do (see RegionTrust.cpp). Planes of one type, CV_8U or CV_16U. `sharpness` (CV_32F,
/// 1/4...1) is how much of the warped pictures to sample bicubically rather than bilinearly:
/// 1 where the two agree, less where they differ (noise, or a wrong flow), which bilinear
/// sampling's blur averages away (see warpPlane in FlowInterpolation.cpp).
void regionTrust(const cv::Mat &warpedA, const cv::Mat &warpedB, const cv::Mat &a, const cv::Mat &b, cv::Mat &trust, cv::Mat &sharpness,
                 RegionScratch &scratch);

}
