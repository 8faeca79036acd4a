// Where the flow's picture is trusted (see RegionTrust.hpp). Where the flow is wrong (a limb
// the smooth flow field misses, background dragged along beside a moving subject) its two warped
// pictures disagree; where the pictures barely moved their unmoved mix is right. Each 16x16
// region weighs the two by the squares of those disagreements: trust = s^2 / (s^2 + m^2) with
// s = 1.5 x mean |a - b| and m = mean |warpedA - warpedB|, smoothed between regions. On the
// bench's footage corpus (bench/frame_drop.py, before encoding) the surveillance clip (vtest:
// pedestrians, fixed camera) gained 0.43 dB (0.25 at high quality), foliage (tree) 0.09, the fast
// pan (bikes) lost 0.11: the mean +0.08 dB, for about a tenth more CPU time in rendering. A hard
// choice per region (8, 16 or 32 pixels) gained 0.1-0.35 dB on vtest and lost 0.2-0.4 on bikes;
// regions of 8 or 24 pixels and margins of 1.2 or 2 came within 0.02 dB of these on the mean.
// The same m sets each region's sharpness: 1/4 + 3/4 / (1 + (m / 6)^2).
#include "RegionTrust.hpp"

#include <cmath>
#include <cstdint>
#include <vector>
#include <opencv2/imgproc.hpp>

namespace slowpoke {

namespace {

/// Regions of this many pixels square (luma).
constexpr int block = 16;
/// The unmoved pictures' difference counts this many times over against the warped ones'.
constexpr float margin = 1.5f;
/// Sharpness: halved when the warped pictures differ by this many 8-bit levels on the mean,
/// never under `blurriest`.
constexpr float noise = 6.0f, blurriest = 0.25f;

/// Each region's mean |warpedA - warpedB| (moved) and |a - b| (still).
template <typename T>
void regionDifferences(const cv::Mat &wa, const cv::Mat &wb, const cv::Mat &a, const cv::Mat &b, cv::Mat &moved, cv::Mat &still) {
    const int cols = a.cols, rows = a.rows, across = moved.cols;
    cv::parallel_for_(cv::Range(0, moved.rows), [&](const cv::Range &range) {
        // Summed in integers, a region at a time (at most 16 x 16 x 65535: no overflow), then
        // divided in doubles: the same values as summing in doubles pixel by pixel (every partial
        // sum is an integer, exact in a double); its share of the CPU samples 1.7% -> 0.7% (perf,
        // fast, box and vtest).
        std::vector<int64_t> m(static_cast<size_t>(across)), s(static_cast<size_t>(across));
        for (int r = range.start; r < range.end; r++) {
            std::fill(m.begin(), m.end(), 0);
            std::fill(s.begin(), s.end(), 0);
            const int top = r * block, bottom = std::min(rows, top + block);
            for (int y = top; y < bottom; y++) {
                const T *pa = wa.ptr<T>(y), *pb = wb.ptr<T>(y), *qa = a.ptr<T>(y), *qb = b.ptr<T>(y);
                for (int c = 0; c < across; c++) {
                    int mm = 0, ss = 0;
                    for (int x = c * block, end = std::min(cols, x + block); x < end; x++) {
                        mm += std::abs(int(pa[x]) - int(pb[x]));
                        ss += std::abs(int(qa[x]) - int(qb[x]));
                    }
                    m[size_t(c)] += mm;
                    s[size_t(c)] += ss;
                }
            }
            float *mo = moved.ptr<float>(r), *st = still.ptr<float>(r);
            for (int c = 0; c < across; c++) {
                const double n = double(bottom - top) * double(std::min(cols, (c + 1) * block) - c * block);
                mo[c] = float(double(m[size_t(c)]) / n);
                st[c] = float(double(s[size_t(c)]) / n);
            }
        }
    });
}

}

void regionTrust(const cv::Mat &warpedA, const cv::Mat &warpedB, const cv::Mat &a, const cv::Mat &b, cv::Mat &trust, cv::Mat &sharpness,
                 RegionScratch &scratch) {
    CV_Assert(warpedA.size() == a.size() && warpedB.size() == a.size() && b.size() == a.size() && a.type() == b.type());
    const cv::Size regions((a.cols + block - 1) / block, (a.rows + block - 1) / block);
    cv::Mat &moved = scratch.moved, &still = scratch.still, &weight = scratch.weight, &sharp = scratch.sharp;
    for (cv::Mat *m : {&moved, &still, &weight, &sharp}) m->create(regions, CV_32F);
    const float noisy = noise * (a.depth() == CV_16U ? 4.0f : 1.0f);
    if (a.depth() == CV_16U) regionDifferences<uint16_t>(warpedA, warpedB, a, b, moved, still);
    else regionDifferences<uint8_t>(warpedA, warpedB, a, b, moved, still);
    for (int r = 0; r < regions.height; r++) {
        const float *m = moved.ptr<float>(r), *s = still.ptr<float>(r);
        float *w = weight.ptr<float>(r);
        for (int c = 0; c < regions.width; c++) {
            const float unmoved = margin * s[c], warped = m[c];
            // Both near zero (a still, flat region): either picture will do, half of each.
            w[c] = (unmoved * unmoved + 1e-3f) / (unmoved * unmoved + warped * warped + 2e-3f);
            const float q = warped / noisy;
            sharp.at<float>(r, c) = blurriest + (1 - blurriest) / (1 + q * q);
        }
    }
    cv::resize(weight, trust, a.size(), 0, 0, cv::INTER_LINEAR);
    cv::resize(sharp, sharpness, a.size(), 0, 0, cv::INTER_LINEAR);
}

}
