// The flow at time t corrected by a symmetric block search at that time (see
// SymmetricRefine.hpp). flowAtTime's fields come from a flow estimated between A and B at a
// reduced size and splatted to the nearest flow pixel: where they are a little off, the two
// warped pictures disagree. Here each 8x8 block of luma at time t (its cost taken over the block
// and 2 pixels around it, so neighbouring windows overlap; every other pixel and row) tries
// corrections d of the motion, sampling A at mapA - t d and B at mapB + (1 - t) d, and keeps
// the one of least mean |A - B| plus `stray` x |d|: candidates are no correction, the
// corrections chosen left and above (3DRS-style), the motions of the blocks 2 and 4 blocks away
// in the four directions (an edge's flow dragged over its neighbour), then half a pixel either
// way around the best. The chosen corrections, interpolated bilinearly between block centres,
// are added to both fields where both pictures see the place; occluded places keep their flow.
//
// Measured on the bench's footage corpus (bench/frame_drop.py, fast, dB over minterpolate,
// before -> after): box +1.330 -> +1.460, cup +0.072 -> +0.085, tree +0.129 -> +0.134, vtest
// +0.256 -> +0.238, bikes +1.967 -> +1.972, carphone +0.386 -> +0.389; mean +0.690 -> +0.713.
// Its gain is the sub-pixel error of a flow at half or a third of the size: with the flow at
// full size (high quality) it gained nothing (box +1.53 -> +1.52, cup +0.12 -> +0.13, vtest
// +0.04 -> +0.03), and little on the fast clips whose flow is at full size already (tree
// +0.005, carphone +0.003, for a tenth more CPU), so it runs only where the flow was scaled
// down. CPU a frame (fast, on a shared machine): box 32.0 -> 35.5 ms, cup 31.4 -> 36.1, vtest
// 27.5 -> 34.5 (its 768x576 has 6912 blocks), bikes 17.0 -> 20.7; tree and carphone unchanged. Dropped, each against the kept set (fast):
// - steps of one pixel before the half pixel (two rounds, reaching 2.5 pixels): vtest -0.1
//   to -0.2 dB, box +0.13; one round: no change. Quarter-pixel steps after: +0.001.
// - vtest loses because the corrected warps agree better, so RegionTrust trusts the flow's
//   picture over the blend where it is still wrong (trust taken from the uncorrected warps: vtest
//   -0.02 instead of -0.12); blocks whose pictures already disagree by over `ceiling` are left
//   to RegionTrust (8 levels: box +0.10 instead of +0.13; none: vtest -0.12).
// - costs on Gaussian-blurred luma (3x3, 5x5; a cure for sub-pixel moves fitting noise):
//   vtest -0.1, no better; a required 10-20% gain over no correction: within 0.01.
// - blocks of 4 or 16 pixels, margins of 4, a smoothness penalty toward the left and upper
//   blocks' corrections (0.5 or 2 levels a pixel), `stray` 1, 3 or 8, searching only where
//   B's share is within 0.4-0.6, or from 1 level of disagreement: within 0.01 on the mean, some
//   clip losing up to 0.1. `ceiling` 10 or 20, `stray` 0.05 or 0.5, `settled` 3: within 0.003
//   on the mean (20: vtest -0.01 more, box and bikes +0.01).
// - the nearby blocks' motions left out (box -0.011, cup -0.004), taken 1 or 4 blocks away, or
//   no motion at all as a candidate: within 0.002. Every pixel and row (stride 1): +0.002 on
//   the mean for 5 ms more a frame.
// - (CPU, output unchanged) a candidate already costed for the block not costed again (it
//   cannot be chosen): only 3% of the costs taken on box and vtest were such repeats (19271 of
//   605585), no measurable gain; dropped.
// - a dense symmetric Lucas-Kanade step instead of the block search (per luma pixel, windows
//   of 9 or 15, the same gates): box +1.40-1.43 against +1.46, the rest the same, and slower.
#include "SymmetricRefine.hpp"
#include "Bilinear.hpp"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace slowpoke {

namespace {

/// Blocks of this many luma pixels square, their costs taken over `margin` pixels more each
/// side, sampling every `stride`-th pixel and row.
constexpr int block = 8, margin = 2, stride = 2;
/// Candidate motions from the blocks this many and twice as many blocks away.
constexpr int reach = 2;
/// The penalty for a correction, in 8-bit levels a luma pixel of |dx| + |dy|.
constexpr float stray = 0.2f;
/// Blocks whose warped pictures differ by under `settled` (8-bit levels, mean) are left alone
/// (nothing to gain, noise to fit); over `ceiling` they are RegionTrust's.
constexpr float settled = 2.0f, ceiling = 15.0f;
/// Both pictures see a place when B's share there is within these.
constexpr float seenLow = 0.1f, seenHigh = 0.9f;

/// One block's search (see the top of this file).
template <typename T>
struct BlockSearch {
    /// The pair's luma planes, sampled with bilinearAt (edges repeated, as cv::remap's BORDER_REPLICATE).
    const cv::Mat &a, &b;
    const cv::Mat &mapA, &mapB;
    float t, levels;

    /// Mean |A - B| over `window` with the correction d, in 8-bit levels, plus `stray` x |d|;
    /// stops (returning a cost over `limit`) as soon as it is sure to exceed `limit`, row by
    /// row (the sum of non-negative terms only grows, so the choice is the same as without).
    float total(const cv::Rect &window, cv::Vec2f d, float limit) const {
        const float ax = -t * d[0], ay = -t * d[1], bx = (1 - t) * d[0], by = (1 - t) * d[1];
        const int n = ((window.width + stride - 1) / stride) * ((window.height + stride - 1) / stride);
        if (n == 0) return 0.0f;
        const float penalty = stray * (std::abs(d[0]) + std::abs(d[1])), scale = levels / float(n);
        float sum = 0;
        for (int y = window.y; y < window.y + window.height; y += stride) {
            const cv::Vec2f *ma = mapA.ptr<cv::Vec2f>(y), *mb = mapB.ptr<cv::Vec2f>(y);
            for (int x = window.x; x < window.x + window.width; x += stride) {
                sum += std::abs(bilinearAt<T>(a, ma[x][0] + ax, ma[x][1] + ay) - bilinearAt<T>(b, mb[x][0] + bx, mb[x][1] + by));
            }
            if (scale * sum + penalty > limit) break;
        }
        return scale * sum + penalty;
    }

    /// The motion over the pair at block (r, c)'s centre (clamped to the picture).
    cv::Vec2f motion(int r, int c) const {
        const int y = std::min(std::max(r * block + block / 2, 0), mapA.rows - 1);
        const int x = std::min(std::max(c * block + block / 2, 0), mapA.cols - 1);
        return mapB.at<cv::Vec2f>(y, x) - mapA.at<cv::Vec2f>(y, x);
    }

    /// The correction of block (r, c), given its left and upper neighbours' (0: none).
    cv::Vec2f choose(int r, int c, cv::Vec2f left, cv::Vec2f up) const {
        const cv::Rect window = cv::Rect(c * block - margin, r * block - margin, block + 2 * margin, block + 2 * margin) &
                                cv::Rect(0, 0, mapA.cols, mapA.rows);
        const float still = total(window, cv::Vec2f(0, 0), ceiling);
        if (still < settled || still > ceiling) return cv::Vec2f(0, 0);
        cv::Vec2f best(0, 0);
        float bestCost = still;
        const auto consider = [&](cv::Vec2f d) {
            const float cost = total(window, d, bestCost);
            if (cost < bestCost) bestCost = cost, best = d;
        };
        if (left != cv::Vec2f(0, 0)) consider(left);
        if (up != cv::Vec2f(0, 0) && up != left) consider(up);
        const cv::Vec2f here = motion(r, c);
        for (int far = reach; far <= 2 * reach; far += reach) {
            for (const cv::Point &o : {cv::Point(far, 0), cv::Point(-far, 0), cv::Point(0, far), cv::Point(0, -far)}) {
                const cv::Vec2f d = motion(r + o.y, c + o.x) - here;
                if (d[0] * d[0] + d[1] * d[1] >= 0.25f) consider(d);
            }
        }
        const cv::Vec2f centre = best;
        for (const cv::Vec2f &step : {cv::Vec2f(0.5f, 0), cv::Vec2f(-0.5f, 0), cv::Vec2f(0, 0.5f), cv::Vec2f(0, -0.5f)}) {
            consider(centre + step);
        }
        return best;
    }
};

/// Every block's correction (luma pixels over the pair; 0 where not searched), in raster order
/// (each block reads its left and upper neighbours' choices, so one thread: deterministic).
template <typename T>
void blockCorrections(const cv::Mat &a, const cv::Mat &b, const cv::Mat &mapA, const cv::Mat &mapB, const cv::Mat &shareB,
                      float t, cv::Mat &chosen, bool &changed) {
    const cv::Size grid((a.cols + block - 1) / block, (a.rows + block - 1) / block);
    chosen.create(grid, CV_32FC2);
    chosen.setTo(cv::Scalar::all(0));
    const BlockSearch<T> search{a, b, mapA, mapB, t, a.depth() == CV_16U ? 1.0f / 4.0f : 1.0f};
    const float fx = float(shareB.cols) / float(a.cols), fy = float(shareB.rows) / float(a.rows);
    for (int r = 0; r < grid.height; r++) {
        for (int c = 0; c < grid.width; c++) {
            const float s = shareB.at<float>(std::min(int(float(r * block + block / 2) * fy), shareB.rows - 1),
                                             std::min(int(float(c * block + block / 2) * fx), shareB.cols - 1));
            if (s < seenLow || s > seenHigh) continue;
            const cv::Vec2f left = c > 0 ? chosen.at<cv::Vec2f>(r, c - 1) : cv::Vec2f(0, 0);
            const cv::Vec2f up = r > 0 ? chosen.at<cv::Vec2f>(r - 1, c) : cv::Vec2f(0, 0);
            const cv::Vec2f d = search.choose(r, c, left, up);
            chosen.at<cv::Vec2f>(r, c) = d;
            changed = changed || d != cv::Vec2f(0, 0);
        }
    }
}

}

bool symmetricRefine(const cv::Mat &a, const cv::Mat &b, const cv::Mat &mapA, const cv::Mat &mapB, const cv::Mat &shareB,
                     float t, cv::Mat &fromA, cv::Mat &fromB, RefineScratch &scratch) {
    CV_Assert(a.size() == b.size() && mapA.size() == a.size() && mapB.size() == a.size() && a.type() == b.type());
    CV_Assert(shareB.size() == fromA.size() && fromB.size() == fromA.size() && shareB.type() == CV_32F);
    bool changed = false;
    if (a.depth() == CV_16U) blockCorrections<uint16_t>(a, b, mapA, mapB, shareB, t, scratch.chosen, changed);
    else blockCorrections<uint8_t>(a, b, mapA, mapB, shareB, t, scratch.chosen, changed);
    if (!changed) return false;
    // To flow pixels, interpolated between block centres.
    const float fx = float(fromA.cols) / float(a.cols), fy = float(fromA.rows) / float(a.rows);
    cv::Mat &field = scratch.field;
    cv::resize(scratch.chosen, field, fromA.size(), 0, 0, cv::INTER_LINEAR);
    for (int y = 0; y < fromA.rows; y++) {
        const cv::Vec2f *d = field.ptr<cv::Vec2f>(y);
        const float *s = shareB.ptr<float>(y);
        cv::Vec2f *pa = fromA.ptr<cv::Vec2f>(y), *pb = fromB.ptr<cv::Vec2f>(y);
        for (int x = 0; x < fromA.cols; x++) {
            if (s[x] < seenLow || s[x] > seenHigh) continue;
            const cv::Vec2f step(d[x][0] * fx, d[x][1] * fy);
            pa[x] += step;
            pb[x] += step;
        }
    }
    return true;
}

}
