// Flow fusion (see FlowFusion.hpp): per region, the flow at time t or a candidate. Measured on
// the bench's footage corpus (bench/frame_drop.py, fast unless said, dB over minterpolate):
//
// Kept: the candidate is the flow itself smoothed (Gaussian, sigma `spread` flow pixels), mixed
// in by `share` in the regions of `region` flow pixels where the main flow fails (the two
// pictures warped along it differ by at least `failing` 8-bit levels on the mean, at the flow's
// size) and moves slowly (at most `fastest` flow pixels over the pair), the choice interpolated
// between regions. Where DIS follows a walker's legs or leaves badly, its field is ragged; the
// smoothed field's mix of both pictures there is nearer the truth. Before -> after: box +1.458
// -> +1.451, cup +0.112 -> +0.112, tree +0.175 -> +0.187, vtest +0.312 -> +0.507, bikes +1.985
// -> +1.991, carphone +0.386 -> +0.383; mean +0.738 -> +0.772. High: box +1.587 -> +1.580,
// cup +0.153 -> +0.153, tree +0.159 -> +0.171, vtest +0.254 -> +0.458, bikes +2.476 -> +2.481,
// carphone +0.402 -> +0.397; mean +0.838 -> +0.873. CPU a frame within the shared machine's
// noise at fast (box 35-39 ms, vtest 34-35), a few percent at high (box 108 -> 114 ms).
// Sigma and share (fast mean; vtest): 8 and 1/2 +0.762 (+0.452), 12 and 1/2 +0.767, 12 and
// 0.35 +0.766, 16 and 1/4 +0.765, 16 and 0.35 +0.770 (+0.495), 24 and 0.4 +0.769, 32 and 0.3
// +0.772 (+0.514), 48 and 0.3 +0.772 (box -0.011). At 24 and 0.3: from 3 levels +0.769 (cup
// -0.014), 4 +0.771, 7 +0.767; at most 6 px +0.764, 20 px +0.772 (bikes -0.012). Earlier, at half
// and the smoothing at full size (fast mean, against +0.738): sigma 4 +0.746, 16 +0.757 (box -0.04, cup -0.02); the
// smoothed flow taken whole instead of half +0.748 (sigma 4), +0.734 (sigma 8: box -0.05, cup
// -0.03); a third +0.756, two thirds +0.755; regions of 4 or 8 +0.757-0.759; from 2 or 3 levels
// of disagreement +0.758 (box -0.02, carphone -0.01); only up to 15 or 30 levels +0.747, +0.757
// (the walkers are the regions over 15); any speed +0.759 (bikes -0.02), at most 5 px +0.745.
//
// Dropped, as the assignment first asked: a second DIS flow at half the main flow's size (a
// quarter of its cost), splatted to time t, each region (8 flow pixels) taking the candidate
// whose two warped pictures agree better, with a bias toward the main flow. Unseeded, bias
// 0.5-4 levels: bikes -0.37 to -0.45, tree -0.07 (mean +0.65-0.66); only where the main
// flow's disagreement is 2-15 levels (the window that saved SymmetricRefine): within 0.01
// everywhere; seeded from the seed scaled down: bikes +0.03, tree -0.02, mean +0.739 for
// 15-20% more CPU; high, 2-15 levels: +0.841 against +0.838 for 30% more. Choosing the pair
// flows themselves (before splatting) by |A(x) - B(x + flow)| plus round-trip error: bikes -1.0
// (the fused flow seeded the next pair), -0.05 with the unfused flow as the seed, tree -0.03,
// cup and vtest +0.01. A second flow at the same size, unseeded: +0.73, 40% more CPU. Why: with
// the true middle picture, the per-region oracle between the main flow and the half-size one
// (seeded) would gain 2-11% of the squared error (vtest 7.8%, bikes 11%), but the gain
// correlates with neither the candidate's better agreement (r = -0.07 on vtest, 0.13 on
// bikes, 0.05 tree, 0.25 cup) nor its round trips (r ~ 0.01); the best threshold rules over
// these features found 0.05% of it. The two flows averaged everywhere: vtest +0.07, bikes
// -0.08, box -0.03: what is kept above, with a cheaper candidate and a gate.
#include "FlowFusion.hpp"

#include <algorithm>
#include <opencv2/imgproc.hpp>

namespace slowpoke {

namespace {

/// Regions of this many flow pixels square.
constexpr int region = 16;
/// A region's flow fails when its two warped pictures differ by this many 8-bit levels or more
/// on the mean, and moves slowly at most `fastest` flow pixels over the pair.
constexpr float failing = 5.0f, fastest = 10.0f;
/// The candidate: the flow smoothed with a Gaussian of this many flow pixels, and its share.
constexpr double spread = 24.0;
constexpr float share = 0.3f;
/// The smoothing runs on the fields scaled down this many times: at sigma 8 the same scores
/// within 0.003 dB as at full size (vtest +0.452 against +0.448), and at high quality
/// (full-size fields, where sigma 8 is a 49-tap filter) box 122 -> 114 ms a frame.
constexpr int coarser = 4;

/// Luma at the flow's size, 8 bits.
cv::Mat lumaAt(const cv::Mat &luma, int depth, cv::Size size) {
    cv::Mat eight, small;
    if (depth > 8) luma.convertTo(eight, CV_8U, 1.0 / (1 << (depth - 8))); else eight = luma;
    if (eight.size() == size) return eight;
    cv::resize(eight, small, size, 0, 0, cv::INTER_AREA);
    return small;
}

/// `field` smoothed by a Gaussian of `spread` flow pixels, on a copy scaled down by `coarser`
/// (INTER_AREA) and scaled back up bilinearly.
void smoothed(const cv::Mat &field, cv::Mat &out) {
    const cv::Size small((field.cols + coarser - 1) / coarser, (field.rows + coarser - 1) / coarser);
    cv::Mat down, blurred;
    cv::resize(field, down, small, 0, 0, cv::INTER_AREA);
    cv::GaussianBlur(down, blurred, cv::Size(0, 0), spread / coarser, spread / coarser, cv::BORDER_REPLICATE);
    cv::resize(blurred, out, field.size(), 0, 0, cv::INTER_LINEAR);
}

/// Each region's share of the candidate (0 or `share`): where the flow fails and moves slowly.
cv::Mat failingRegions(const cv::Mat &a, const cv::Mat &b, const cv::Mat &fromA, const cv::Mat &fromB, float t) {
    const int rows = fromA.rows, cols = fromA.cols;
    cv::Mat mapA(fromA.size(), CV_32FC2), mapB(fromA.size(), CV_32FC2), wa, wb;
    for (int y = 0; y < rows; y++) {
        const cv::Vec2f *fa = fromA.ptr<cv::Vec2f>(y), *fb = fromB.ptr<cv::Vec2f>(y);
        cv::Vec2f *ma = mapA.ptr<cv::Vec2f>(y), *mb = mapB.ptr<cv::Vec2f>(y);
        for (int x = 0; x < cols; x++) {
            ma[x] = cv::Vec2f(x - t * fa[x][0], y - t * fa[x][1]);
            mb[x] = cv::Vec2f(x + (1 - t) * fb[x][0], y + (1 - t) * fb[x][1]);
        }
    }
    cv::remap(a, wa, mapA, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::remap(b, wb, mapB, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    // Sums per region, in raster order on one thread (deterministic).
    const cv::Size grid((cols + region - 1) / region, (rows + region - 1) / region);
    cv::Mat disagreement(grid, CV_64F, cv::Scalar(0)), motion(grid, CV_64F, cv::Scalar(0)), count(grid, CV_64F, cv::Scalar(0));
    for (int y = 0; y < rows; y++) {
        const uint8_t *pa = wa.ptr<uint8_t>(y), *pb = wb.ptr<uint8_t>(y);
        const cv::Vec2f *fa = fromA.ptr<cv::Vec2f>(y);
        double *d = disagreement.ptr<double>(y / region), *m = motion.ptr<double>(y / region), *n = count.ptr<double>(y / region);
        for (int x = 0; x < cols; x++) {
            d[x / region] += std::abs(int(pa[x]) - int(pb[x]));
            m[x / region] += std::sqrt(fa[x][0] * fa[x][0] + fa[x][1] * fa[x][1]);
            n[x / region] += 1;
        }
    }
    cv::Mat choice(grid, CV_32F);
    for (int r = 0; r < grid.height; r++) {
        for (int c = 0; c < grid.width; c++) {
            const double n = count.at<double>(r, c);
            const bool fails = disagreement.at<double>(r, c) >= failing * n && motion.at<double>(r, c) <= fastest * n;
            choice.at<float>(r, c) = fails ? share : 0.0f;
        }
    }
    return choice;
}

}

void fuseAtTime(const cv::Mat &a, const cv::Mat &b, int depth, float t, cv::Mat &fromA, cv::Mat &fromB) {
    CV_Assert(!fromA.empty() && fromA.type() == CV_32FC2 && fromB.size() == fromA.size() && fromB.type() == CV_32FC2);
    const cv::Size size = fromA.size();
    const cv::Mat choice = failingRegions(lumaAt(a, depth, size), lumaAt(b, depth, size), fromA, fromB, t);
    if (cv::countNonZero(choice) == 0) return;
    cv::Mat weight, smoothA, smoothB;
    cv::resize(choice, weight, size, 0, 0, cv::INTER_LINEAR);
    smoothed(fromA, smoothA);
    smoothed(fromB, smoothB);
    for (int y = 0; y < size.height; y++) {
        const float *w = weight.ptr<float>(y);
        const cv::Vec2f *sa = smoothA.ptr<cv::Vec2f>(y), *sb = smoothB.ptr<cv::Vec2f>(y);
        cv::Vec2f *pa = fromA.ptr<cv::Vec2f>(y), *pb = fromB.ptr<cv::Vec2f>(y);
        for (int x = 0; x < size.width; x++) {
            if (w[x] <= 0) continue;
            pa[x] += w[x] * (sa[x] - pa[x]);
            pb[x] += w[x] * (sb[x] - pb[x]);
        }
    }
}

}
