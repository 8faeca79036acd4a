#include "TimeFlow.hpp"

#include <cmath>
#include <opencv2/imgproc.hpp>

namespace slowpoke {

namespace {

/// Round-trip errors are capped at this many flow pixels; a pixel leaving the frame gets it.
constexpr float hidden = 64.0f;

}

cv::Mat roundTripError(const cv::Mat &forward, const cv::Mat &backward) {
    cv::Mat map(forward.size(), CV_32FC2), back, error(forward.size(), CV_32F);
    for (int y = 0; y < forward.rows; y++) {
        const cv::Vec2f *f = forward.ptr<cv::Vec2f>(y);
        cv::Vec2f *m = map.ptr<cv::Vec2f>(y);
        for (int x = 0; x < forward.cols; x++) m[x] = cv::Vec2f(x + f[x][0], y + f[x][1]);
    }
    cv::remap(backward, back, map, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    for (int y = 0; y < forward.rows; y++) {
        const cv::Vec2f *f = forward.ptr<cv::Vec2f>(y), *b = back.ptr<cv::Vec2f>(y), *m = map.ptr<cv::Vec2f>(y);
        float *e = error.ptr<float>(y);
        for (int x = 0; x < forward.cols; x++) {
            const bool outside = m[x][0] < 0 || m[x][1] < 0 || m[x][0] > forward.cols - 1 || m[x][1] > forward.rows - 1;
            const float dx = f[x][0] + b[x][0], dy = f[x][1] + b[x][1];
            e[x] = outside ? hidden : std::min(hidden, std::sqrt(dx * dx + dy * dy));
        }
    }
    return error;
}

void flowAtTime(const PairFlow &flow, float t, cv::Mat &fromA, cv::Mat &fromB, cv::Mat &weightB) {
    const cv::Size size = flow.forward.size();
    CV_Assert(!size.empty() && flow.backward.size() == size);
    fromA.create(size, CV_32FC2);
    fromB.create(size, CV_32FC2);
    weightB.create(size, CV_32F);
    weightB.setTo(cv::Scalar(t));
    for (int y = 0; y < size.height; y++) {
        const cv::Vec2f *f = flow.forward.ptr<cv::Vec2f>(y), *b = flow.backward.ptr<cv::Vec2f>(y);
        cv::Vec2f *a = fromA.ptr<cv::Vec2f>(y), *c = fromB.ptr<cv::Vec2f>(y);
        for (int x = 0; x < size.width; x++) a[x] = c[x] = (1.0f - t) * f[x] - t * b[x];
    }
}

}
