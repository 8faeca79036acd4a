// Internal to the FlowInterpolation target: one sample of a plane between its pixels, for the
// loops that need a few scattered samples (MotionBlur's along the motion, SymmetricRefine's
// block costs) rather than a whole remapped picture.
#pragma once

#include <algorithm>
#include <opencv2/core.hpp>

namespace slowpoke {

/// `plane` sampled bilinearly at (x, y), its edge repeated beyond it. Always inlined: g++ -O2
/// left it a call, 14% of the CPU samples of a fast 720p render (perf, frame_drop's scorer).
template <typename T>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline float bilinearAt(const cv::Mat &plane, float x, float y) {
    x = std::min(std::max(x, 0.0f), float(plane.cols - 1));
    y = std::min(std::max(y, 0.0f), float(plane.rows - 1));
    const int x0 = int(x), y0 = int(y), x1 = std::min(x0 + 1, plane.cols - 1), y1 = std::min(y0 + 1, plane.rows - 1);
    const float fx = x - float(x0), fy = y - float(y0);
    const T *r0 = plane.ptr<T>(y0), *r1 = plane.ptr<T>(y1);
    const float top = float(r0[x0]) + fx * (float(r0[x1]) - float(r0[x0]));
    const float bottom = float(r1[x0]) + fx * (float(r1[x1]) - float(r1[x0]));
    return top + fy * (bottom - top);
}

}
