// The C API of FlowInterpolation.h: one source pair's flow (OpenCV's DIS, both ways, on luma
// scaled down), then any number of in-between pictures warped from it (see TimeFlow.hpp).
#include "FlowInterpolation.h"
#include "FlowFusion.hpp"
#include "FlowResolution.hpp"
#include "MotionBlur.hpp"
#include "OcclusionShare.hpp"
#include "RegionTrust.hpp"
#include "SymmetricRefine.hpp"
#include "TimeFlow.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

using namespace slowpoke;

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

/// pairFlow's buffers: the pair's lumas at the flow's size (and 8-bit luma before scaling,
/// for 10-bit pictures), residualShare's map and warped picture, the round trips' buffers.
struct PairScratch {
    cv::Mat eight, lumaA, lumaB, map[2], warped[2];
    TimeFlowScratch roundTrip[2];
};

struct SPFlowInterpolator {
    int width = 0, height = 0, depth = 8;
    /// Flow resolution: the picture divided by this.
    int flowDivisor = 1;
    /// SP_FLOW_QUALITY_FAST or SP_FLOW_QUALITY_HIGH (see makeDIS).
    int quality = SP_FLOW_QUALITY_FAST;
    /// DIS at the flow's resolution, and at full size for the retry (made on first use). OpenCV
    /// 4.6's DIS keeps its pyramid and refinement buffers for the size it last ran at: one
    /// object run at both sizes crashed (SIGSEGV inside its parallel body) on a 640 px or wider
    /// pair retried after a cut or a flash. Each interpolator is used by one thread at a time.
    /// One object a direction ([0] A to B, [1] B to A): the two run at once (see pairFlow).
    /// OpenCV 4.6's DIS is not without memory: a call handed no flow to start from reuses the
    /// start pyramid the object's last call handed one left behind (on synthetic pairs flows up
    /// to 36 flow pixels apart), so an unseeded pair at the flow's size gets two new objects:
    /// its flow depends on the pair alone, not on what the interpolator computed before.
    cv::Ptr<cv::DISOpticalFlow> dis[2], fullSizeDis[2];
    /// The pair's planes Y, U, V (CV_8U, or CV_16U for 10-bit).
    cv::Mat a[3], b[3];
    PairFlow flow;
    /// The flow (both ways) DIS starts the next pair from, set by sp_flow_seed and used up by
    /// the next sp_flow_set_pair (`seeded`); none: start afresh. Their buffers are kept (the
    /// flow's and the seed's are swapped).
    cv::Mat seedForward, seedBackward;
    bool seeded = false;
    /// Buffers reused from one picture to the next (allocating them anew for every picture
    /// cost a fifth of the CPU time in the kernel, zeroing fresh pages).
    cv::Mat fromA, fromB, errorA, errorB, shareB;
    /// So are the pair's and the stages' buffers (see TimeFlowScratch): with the CLI's mmap
    /// threshold (MALLOC_MMAP_THRESHOLD_=131072), CPU a frame (user + system, ms, two runs'
    /// mean, bench/frame_drop.py, output byte for byte the same) fast: box 43.6 -> 39.3, cup
    /// 46.3 -> 41.9, tree 28.3 -> 26.6, vtest 39.2 -> 37.1, bikes 27.0 -> 25.6, carphone 8.6 ->
    /// 8.6 (system time halved: box 5.7 -> 2.7); high: box 143 -> 122, cup 154 -> 135, vtest 75 ->
    /// 74, bikes 86 -> 82, tree and carphone within the noise.
    PairScratch pairScratch;
    TimeFlowScratch timeScratch;
    OcclusionScratch occlusionScratch;
    RefineScratch refineScratch;
    /// Luma's and chroma's (U and V share theirs).
    PlaneWork work[2];
    int reliable = -1;
    std::string error;
};

namespace {

/// A pair is unreliable (a cut, a flash) when after warping one picture onto the other more
/// than `unexplained` of its pixels still differ by more than `residualLevel` (8-bit levels).
/// Measured: synthetic moving footage leaves at most 3% unexplained, a cut between two
/// look-alike textures 34% (with 77% of round trips missing by over a flow pixel). Real footage
/// comes close: a fast blurred pan in the bench's bikes clip leaves 18-25% (round trips missing
/// on 65-71%), foliage in wind (tree) 27%. A lower bar (15%, or 5% with over 60% of round trips
/// missing) called those pairs cuts and showed the nearer picture: about 1 dB lost on bikes and
/// 0.5 on tree, since even a wrong flow's mix of both pictures is nearer the truth than either.
constexpr double unexplained = 0.3;
constexpr int residualLevel = 24;

cv::Size planeSize(const SPFlowInterpolator *p, int plane) {
    return plane == 0 ? cv::Size(p->width, p->height) : cv::Size((p->width + 1) / 2, (p->height + 1) / 2);
}

int planeType(const SPFlowInterpolator *p) { return p->depth > 8 ? CV_16UC1 : CV_8UC1; }

/// Luma as 8 bits, divided in size by `divisor`, into `small` (`eight`: a buffer).
void flowLuma(const SPFlowInterpolator *p, const cv::Mat &luma, int divisor, cv::Mat &eight, cv::Mat &small) {
    const cv::Mat *source = &luma;
    if (p->depth > 8) {
        luma.convertTo(eight, CV_8U, 1.0 / (1 << (p->depth - 8)));
        source = &eight;
    }
    if (divisor == 1) {
        source->copyTo(small);
        return;
    }
    const cv::Size size((luma.cols + divisor - 1) / divisor, (luma.rows + divisor - 1) / divisor);
    cv::resize(*source, small, size, 0, 0, cv::INTER_AREA);
}

/// The share of pixels of `to` that `from` warped along `flow` misses by more than residualLevel
/// (`map` and `warped`: buffers).
double residualShare(const cv::Mat &from, const cv::Mat &to, const cv::Mat &flow, cv::Mat &map, cv::Mat &warped) {
    map.create(flow.size(), CV_32FC2);
    for (int y = 0; y < flow.rows; y++) {
        const cv::Vec2f *f = flow.ptr<cv::Vec2f>(y);
        cv::Vec2f *m = map.ptr<cv::Vec2f>(y);
        for (int x = 0; x < flow.cols; x++) m[x] = cv::Vec2f(x + f[x][0], y + f[x][1]);
    }
    cv::remap(from, warped, map, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    CV_Assert(warped.type() == CV_8UC1 && to.type() == CV_8UC1 && warped.size() == to.size());
    // Counted here rather than with absdiff, a comparison and countNonZero (three passes and
    // two temporaries): the same count.
    size_t missed = 0;
    for (int y = 0; y < to.rows; y++) {
        const uint8_t *w = warped.ptr<uint8_t>(y), *o = to.ptr<uint8_t>(y);
        for (int x = 0; x < to.cols; x++) missed += std::abs(int(w[x]) - int(o[x])) > residualLevel;
    }
    return double(missed) / double(to.total());
}

/// The sampling maps of a plane of `size` (A warped back by t, B forward by 1 - t), and B's
/// share (occlusionShare) at its resolution. The fields are at the flow's resolution,
/// upsampled bilinearly a row at a time (cheaper than resizing four channels to the plane's
/// size); cv::remap's vectorised sampling then warps each picture (bilinear: 18% less CPU than
/// sampling here, measured; handing it fixed-point maps made here cost 17% more than its own
/// conversion). Snapping each luma pixel's maps to the neighbouring field value (one or two flow
/// pixels away) whose two samples match best (3x3) where they differ: within 0.01 dB, dropped.
void buildMaps(PlaneWork &work, cv::Size size, const cv::Mat &fromA, const cv::Mat &fromB, const cv::Mat &shareB, float t) {
    CV_Assert(!fromA.empty() && fromA.type() == CV_32FC2 && fromB.type() == CV_32FC2);
    CV_Assert(fromB.size() == fromA.size() && shareB.size() == fromA.size() && shareB.type() == CV_32F);
    CV_Assert(size.width > 0 && size.height > 0);
    const int cols = size.width, rows = size.height, fieldCols = fromA.cols, fieldRows = fromA.rows;
    const float sx = float(fieldCols) / float(cols), sy = float(fieldRows) / float(rows);
    const float scaleX = 1.0f / sx, scaleY = 1.0f / sy;
    // Each column's field column (the next one's weight `across`).
    std::vector<int> left(cols);
    std::vector<float> across(cols);
    for (int x = 0; x < cols; x++) {
        const float f = std::min(std::max((x + 0.5f) * sx - 0.5f, 0.0f), float(fieldCols - 1));
        left[x] = int(f);
        across[x] = f - left[x];
    }
    work.mapA.create(rows, cols, CV_32FC2);
    work.mapB.create(rows, cols, CV_32FC2);
    work.shareB.create(rows, cols, CV_32F);
    cv::Mat &mapA = work.mapA, &mapB = work.mapB, &share = work.shareB;
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        // One field row, interpolated vertically: fromA x, y, fromB x, y, shareB; and `step`,
        // each column's difference to the next (0 at the last): the same subtraction each
        // pixel between two field columns made, now once a field column (the same bytes).
        std::vector<float> line(size_t(fieldCols) * 5), step(size_t(fieldCols) * 5);
        for (int y = range.start; y < range.end; y++) {
            const float f = std::min(std::max((y + 0.5f) * sy - 0.5f, 0.0f), float(fieldRows - 1));
            const int r0 = int(f), r1 = std::min(r0 + 1, fieldRows - 1);
            const float down = f - r0;
            const cv::Vec2f *a0 = fromA.ptr<cv::Vec2f>(r0), *a1 = fromA.ptr<cv::Vec2f>(r1);
            const cv::Vec2f *b0 = fromB.ptr<cv::Vec2f>(r0), *b1 = fromB.ptr<cv::Vec2f>(r1);
            const float *s0 = shareB.ptr<float>(r0), *s1 = shareB.ptr<float>(r1);
            for (int x = 0; x < fieldCols; x++) {
                float *l = &line[size_t(x) * 5];
                l[0] = a0[x][0] + down * (a1[x][0] - a0[x][0]);
                l[1] = a0[x][1] + down * (a1[x][1] - a0[x][1]);
                l[2] = b0[x][0] + down * (b1[x][0] - b0[x][0]);
                l[3] = b0[x][1] + down * (b1[x][1] - b0[x][1]);
                l[4] = s0[x] + down * (s1[x] - s0[x]);
            }
            for (int x = 0; x < fieldCols; x++) {
                const float *l = &line[size_t(x) * 5], *r = &line[size_t(std::min(x + 1, fieldCols - 1)) * 5];
                for (int k = 0; k < 5; k++) step[size_t(x) * 5 + size_t(k)] = r[k] - l[k];
            }
            cv::Vec2f *ma = mapA.ptr<cv::Vec2f>(y), *mb = mapB.ptr<cv::Vec2f>(y);
            float *sh = share.ptr<float>(y);
            const float ta = t * scaleX, tay = t * scaleY, tb = (1 - t) * scaleX, tby = (1 - t) * scaleY;
            for (int x = 0; x < cols; x++) {
                const float *l = &line[size_t(left[x]) * 5], *r = &step[size_t(left[x]) * 5];
                const float c = across[x];
                const float ax = l[0] + c * r[0], ay = l[1] + c * r[1];
                const float bx = l[2] + c * r[2], by = l[3] + c * r[3];
                ma[x] = cv::Vec2f(x - ta * ax, y - tay * ay);
                mb[x] = cv::Vec2f(x + tb * bx, y + tby * by);
                sh[x] = l[4] + c * r[4];
            }
        }
    });
    work.fixedStale = true;
}

/// `work`'s maps in fixed point, for its remaps (made again only after buildMaps). cv::remap
/// handed float maps converts each block of them to these same fixed-point maps (cvRound of 32
/// times the coordinate) on every call: luma's four remaps (bilinear and bicubic, A and B) and
/// chroma's four (U and V, A and B) converted each map two or four times, where now it is once;
/// the output is byte for byte the same.
void fixedMaps(PlaneWork &work) {
    if (!work.fixedStale) return;
    const cv::Mat *maps[2] = {&work.mapA, &work.mapB};
    cv::Mat *fixed[2] = {&work.fixedA, &work.fixedB}, *fraction[2] = {&work.fractionA, &work.fractionB};
    for (int k = 0; k < 2; k++) {
        fixed[k]->create(maps[k]->size(), CV_16SC2);
        fraction[k]->create(maps[k]->size(), CV_16UC1);
    }
    // Rows converted on OpenCV's threads, each into its own rows of the outputs (already made:
    // convertMaps' create keeps them).
    cv::parallel_for_(cv::Range(0, 2 * work.mapA.rows), [&](const cv::Range &range) {
        for (int k = 0; k < 2; k++) {
            const int rows = maps[k]->rows, begin = std::max(range.start - k * rows, 0), end = std::min(range.end - k * rows, rows);
            if (begin >= end) continue;
            const cv::Range span(begin, end);
            cv::Mat toFixed = fixed[k]->rowRange(span), toFraction = fraction[k]->rowRange(span);
            cv::convertMaps(maps[k]->rowRange(span), cv::noArray(), toFixed, toFraction, CV_16SC2);
        }
    });
    work.fixedStale = false;
}

/// Luma's two warped values at each pixel of row `y` (into `va`, `vb`): partly bicubic, and
/// blurred along the motion where `blur` (each pixel's share, also written) is over `blurless`
/// (see warpPlane and MotionBlur.hpp). In two passes, the first without a branch (a compiler may
/// vectorize it, stillness's division included), the second over the pixels to
/// blur: the same arithmetic as in one pass, the same bytes. Tried and dropped: the pixels to
/// blur listed without a branch before blurring them (g++ -O2 syn720 56.5 -> 56.0 ms a picture,
/// clang++ -O2 50.8 -> 50.7: nothing for the compiler that builds the package); blurredAlongMotion
/// always inlined (syn720 58.5 -> 57.7, vtest 21.4 -> 21.7: noise).
template <typename T>
void sharpRow(const PlaneWork &work, const cv::Mat &a, const cv::Mat &b, int y, float *va, float *vb, float *blur) {
    const T *pa = work.warpedA.ptr<T>(y), *pb = work.warpedB.ptr<T>(y), *qa = work.sharpA.ptr<T>(y), *qb = work.sharpB.ptr<T>(y);
    const float *sharpness = work.sharpness.ptr<float>(y);
    const cv::Vec2f *ma = work.mapA.ptr<cv::Vec2f>(y), *mb = work.mapB.ptr<cv::Vec2f>(y);
    for (int x = 0; x < a.cols; x++) {
        // The motion over the pair (the two maps' distance), in luma pixels.
        const cv::Vec2f d = mb[x] - ma[x];
        const float still = stillness(d);
        const float c = sharpness[x] * still;
        blur[x] = motionBlurShare(still, sharpness[x]);
        va[x] = (1 - c) * float(pa[x]) + c * float(qa[x]);
        vb[x] = (1 - c) * float(pb[x]) + c * float(qb[x]);
    }
    for (int x = 0; x < a.cols; x++) {
        if (!(blur[x] > blurless)) continue;
        const BlurStep step = blurStep<T>(mb[x] - ma[x]);
        va[x] = blurredAlongMotion<T>(a, ma[x], step, va[x], blur[x]);
        vb[x] = blurredAlongMotion<T>(b, mb[x], step, vb[x], blur[x]);
    }
}

/// Warps and mixes one plane with the maps of `work` (U and V share theirs): (1 - s) of A, s of
/// B, s being `work.shareB` (t unless one side does not see the place). With `sharp` (luma)
/// each picture is sampled partly bilinearly, partly bicubically. The flow's small fractional
/// offsets make bilinear sampling blur still and slow detail: on the bench's real-footage
/// corpus bicubic alone scored 1.1 dB more on the hand-held box and 0.2 more on carphone, but
/// 0.1-0.2 dB less on the noisy clips (foliage, the surveillance camera), where the blur
/// averages noise away; half of each kept most of the gain (box +0.8, carphone +0.2) and lost
/// at most 0.05 dB. The bicubic share is now regionTrust's sharpness (1 where the two warped
/// pictures agree, down to 1/4 where they differ by noise or a wrong flow) times the motion's
/// `stillness`, and a fast subject the warped pictures disagree on is blurred along its motion
/// (both in MotionBlur.hpp). Chroma gained nothing from bicubic sampling. Luma then sets
/// `work.trust` (regionTrust), which `chroma` takes scaled down (chroma is 0.6-3% of the corpus's
/// squared error; its own regionTrust: within 0.01 dB); each pixel mixes the flow's picture with
/// the unmoved pictures' mix by it.

template <typename T>
void warpPlane(PlaneWork &work, const cv::Mat &a, const cv::Mat &b, float t, bool sharp, PlaneWork *chroma,
               float maximum, uint8_t *out, int stride) {
    CV_Assert(b.size() == a.size() && work.mapA.size() == a.size() && work.mapB.size() == a.size());
    const int cols = a.cols, rows = a.rows;
    const cv::Mat &mapA = work.mapA, &mapB = work.mapB;
    cv::Mat &wa = work.warpedA, &wb = work.warpedB, &sa = work.sharpA, &sb = work.sharpB;
    fixedMaps(work);
    cv::remap(a, wa, work.fixedA, work.fractionA, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::remap(b, wb, work.fixedB, work.fractionB, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    if (sharp) {
        cv::remap(a, sa, work.fixedA, work.fractionA, work.sharpSampling, cv::BORDER_REPLICATE);
        cv::remap(b, sb, work.fixedB, work.fractionB, work.sharpSampling, cv::BORDER_REPLICATE);
        regionTrust(wa, wb, a, b, work.trust, work.sharpness, work.region);
        if (chroma) cv::resize(work.trust, chroma->trust, chroma->mapA.size(), 0, 0, cv::INTER_AREA);
    }
    CV_Assert(work.trust.size() == a.size());
    CV_Assert(work.shareB.size() == a.size());
    const float half = sharp ? 0.5f : 1.0f;
    // The rows, compiled twice (`sharp` a constant in each): chroma's loop has no branch left
    // and a compiler may vectorize it; the same arithmetic either way (the same bytes).
    const auto mix = [&](const cv::Range &range, auto sharpKind) {
        constexpr bool sharply = decltype(sharpKind)::value;
        // Luma's two warped values and blur shares along the row (see sharpRow).
        std::vector<float> values(sharply ? size_t(cols) * 3 : 0);
        float *va = values.data(), *vb = va + (sharply ? cols : 0), *blur = vb + (sharply ? cols : 0);
        for (int y = range.start; y < range.end; y++) {
            const T *pa = wa.ptr<T>(y), *pb = wb.ptr<T>(y), *ua = a.ptr<T>(y), *ub = b.ptr<T>(y);
            const float *trust = work.trust.ptr<float>(y), *share = work.shareB.ptr<float>(y);
            T *o = reinterpret_cast<T *>(out + size_t(y) * size_t(stride));
            if constexpr (sharply) sharpRow<T>(work, a, b, y, va, vb, blur);
            for (int x = 0; x < cols; x++) {
                const float kb = half * share[x], ka = half - kb;
                float moved;
                if constexpr (sharply) moved = 2 * ka * va[x] + 2 * kb * vb[x];
                else moved = ka * float(pa[x]) + kb * float(pb[x]);
                const float unmoved = (1 - t) * float(ua[x]) + t * float(ub[x]);
                const float v = unmoved + trust[x] * (moved - unmoved) + 0.5f;
                o[x] = T(std::min(std::max(v, 0.0f), maximum));
            }
        }
    };
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        if (sharp) mix(range, std::true_type());
        else mix(range, std::false_type());
    });
}

void copyPlane(const cv::Mat &plane, uint8_t *out, int stride) {
    const size_t bytes = size_t(plane.cols) * plane.elemSize();
    for (int y = 0; y < plane.rows; y++) std::memcpy(out + size_t(y) * size_t(stride), plane.ptr(y), bytes);
}

}

/// DIS at the medium preset, with OpenCV's mean normalisation. Without it the bench's
/// real-footage corpus scored 0.17 dB better on average, but a pattern whose brightness
/// changes as it moves lost its in-between frames: in clip240 slowed 4x (ConstantRateExportTests)
/// in-between pictures came out as copies of the next frame, a visible stutter. Patches every
/// 2 pixels instead of the preset's 3: on the footage corpus (bench/frame_drop.py, seeded) the
/// fast pan (bikes) gained 1.0 dB (0.7 at high quality), the others within 0.03, for about half
/// as much time again in DIS (box: 13 -> 19.5 ms a pair fast, 54 -> 94 high). Tried at the
/// preset's stride: patches of 12 (bikes +0.7, 1.6x the time), finest scale 0 (bikes +0.8,
/// box +0.2, twice the time), 50 gradient descent iterations (bikes +0.3), 15 variational
/// refinement iterations (no gain); at stride 2, 16 iterations instead of 25 lost bikes' gain.
/// SP_FLOW_QUALITY_FAST refines 2 times a scale instead of the preset's 5: DIS 17 -> 15 ms a
/// 320x240 pair both ways on one core, about 6% of the fast frame's CPU time, for bikes +0.08,
/// tree and vtest -0.02, box -0.01 (mean +0.005, bench/frame_drop.py); high kept 5, where 3
/// cost bikes 0.39 dB. Fast, dB against these (box cup tree vtest bikes carphone): alpha 10 -.04
/// +.01 -.06 -.07 +.19 0, 40 +.01 0 -.01 +.05 -.62 -.01; delta 2 0 0 +.02 +.01 -.14 -.01, 10 -.01
/// 0 -.04 -.04 +.20 0; gamma 5 +.01 0 -.01 +.01 -.60 -.01, 20 -.03 0 -.01 -.04 +.33 0 (high vtest
/// -.05, bikes -.17); 40 descent iterations, 3 or 5 refinements: within .05 but bikes; luma blurred
/// (sigma 1) before DIS: tree -.04, vtest -.04 (high tree -.06, bikes -.26). None kept.
static cv::Ptr<cv::DISOpticalFlow> makeDIS(int quality) {
    cv::Ptr<cv::DISOpticalFlow> dis = cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
    dis->setPatchStride(2);
    if (quality == SP_FLOW_QUALITY_FAST) dis->setVariationalRefinementIterations(2);
    return dis;
}

/// The pair's flow both ways at 1/divisor of its size, with round-trip errors; whether it
/// explains the pictures (see `unexplained`). Not kept (fast, 1-10 ms more; within 0.02 dB on
/// cup, tree, vtest, carphone unless said): failed round trips' flow replaced by a luma-weighted
/// median of consistent neighbours (7x7, 11x11) or by the neighbour's with the least SAD (vtest
/// -0.03 to -0.08); a guided filter on luma (radius 2-4: vtest up to +0.08, tree and bikes down
/// to -0.06, -0.12); an acceleration term from the previous pair's flow (cup +0.02, bikes -0.22).
/// Oracle: DIS from A and B to the true middle picture: cup +1.26, tree +0.78, vtest +0.68.
static bool pairFlow(SPFlowInterpolator *p, int divisor) {
    PairScratch &scratch = p->pairScratch;
    const cv::Mat &lumaA = scratch.lumaA, &lumaB = scratch.lumaB;
    flowLuma(p, p->a[0], divisor, scratch.eight, scratch.lumaA);
    flowLuma(p, p->b[0], divisor, scratch.eight, scratch.lumaB);
    cv::Ptr<cv::DISOpticalFlow> *dis = divisor == p->flowDivisor ? p->dis : p->fullSizeDis;
    for (int k = 0; k < 2; k++) if (!dis[k]) dis[k] = makeDIS(p->quality);
    CV_Assert(lumaA.size() == lumaB.size() && lumaA.type() == CV_8UC1 && lumaB.type() == CV_8UC1);
    // DIS starts from the flow it is handed when that has the right size: the seed of
    // sp_flow_seed, else nothing (a flow left from an earlier pair would make the result depend
    // on which pairs this interpolator happened to see), on new objects (see
    // SPFlowInterpolator::dis): the first pair, and the one after a cut, is the same whatever
    // came before. Against the objects' memory (their last seeded call), on
    // bench/frame_drop.py's footage: the same scores to 0.01 dB (its clips have no cuts, and
    // their first pairs were the only ones to change).
    const bool seeded = p->seeded && divisor == p->flowDivisor && p->seedForward.size() == lumaA.size();
    if (seeded) {
        std::swap(p->flow.forward, p->seedForward);
        std::swap(p->flow.backward, p->seedBackward);
    } else {
        p->flow.forward.release();
        p->flow.backward.release();
        if (divisor == p->flowDivisor) for (int k = 0; k < 2; k++) dis[k] = makeDIS(p->quality);
    }
    p->seeded = false;
    // The two directions, each by its own DIS object, then each one's round trip and residual,
    // on two of OpenCV's threads when it has them (one after the other after
    // cv::setNumThreads(1)): the same bytes. sp_flow_set_pair on box (bench/frame_drop.py's
    // clip), when both cores were free: fast 12.4 -> 10.0 ms wall a pair (CPU 21.5 -> 18.9),
    // high 54.9 -> 44.0 ms (CPU 96.3 -> 85.1; DIS's own parallel loops cost more CPU than one
    // loop a direction); on one busy core the same (fast 18.7, high 85-89 ms). A
    // seeded call does not depend on the object's past, nor does the full-size retry's (never
    // seeded), nor an unseeded call on its new objects.
    cv::Mat *flows[2] = {&p->flow.forward, &p->flow.backward}, *errors[2] = {&p->flow.forwardError, &p->flow.backwardError};
    const cv::Mat *from[2] = {&lumaA, &lumaB};
    cv::parallel_for_(cv::Range(0, 2), [&](const cv::Range &range) {
        for (int k = range.start; k < range.end; k++) dis[k]->calc(*from[k], *from[1 - k], *flows[k]);
    });
    CV_Assert(p->flow.forward.size() == lumaA.size() && p->flow.backward.size() == lumaA.size());
    double residual[2];
    cv::parallel_for_(cv::Range(0, 2), [&](const cv::Range &range) {
        for (int k = range.start; k < range.end; k++) {
            roundTripError(*flows[k], *flows[1 - k], *errors[k], scratch.roundTrip[k]);
            residual[k] = residualShare(*from[1 - k], *from[k], *flows[k], scratch.map[k], scratch.warped[k]);
        }
    });
    return std::min(residual[0], residual[1]) <= unexplained;
}

extern "C" {

int sp_flow_create(int width, int height, int bitDepth, int threads, SPFlowInterpolator **out) {
    if (!out) return SP_FLOW_BAD_ARGUMENT;
    *out = nullptr;
    if (width < 32 || height < 32) return SP_FLOW_BAD_SIZE;
    if (bitDepth != 8 && bitDepth != 10) return SP_FLOW_BAD_DEPTH;
    try {
        auto *p = new SPFlowInterpolator();
        p->width = width;
        p->height = height;
        p->depth = bitDepth;
        p->flowDivisor = flowDivisor(width, height, p->quality);
        for (cv::Ptr<cv::DISOpticalFlow> &dis : p->dis) dis = makeDIS(p->quality);
        if (threads > 0) cv::setNumThreads(threads);
        *out = p;
        return SP_FLOW_OK;
    } catch (const std::exception &) {
        return SP_FLOW_FAILED;
    }
}

int sp_flow_set_quality(SPFlowInterpolator *p, int quality) {
    if (!p || (quality != SP_FLOW_QUALITY_FAST && quality != SP_FLOW_QUALITY_HIGH)) return SP_FLOW_BAD_ARGUMENT;
    const int divisor = flowDivisor(p->width, p->height, quality);
    if (divisor != p->flowDivisor || quality != p->quality) {
        p->flowDivisor = divisor;
        p->quality = quality;
        // Each DIS object keeps the buffers of the size it last ran at (see SPFlowInterpolator).
        for (cv::Ptr<cv::DISOpticalFlow> &dis : p->dis) dis = makeDIS(quality);
        for (cv::Ptr<cv::DISOpticalFlow> &dis : p->fullSizeDis) dis.release();
        p->reliable = -1;
    }
    return SP_FLOW_OK;
}

int sp_flow_set_pair(SPFlowInterpolator *p, const uint8_t *const a[3], const int aStride[3],
                     const uint8_t *const b[3], const int bStride[3]) {
    if (!p || !a || !b || !aStride || !bStride) return SP_FLOW_BAD_ARGUMENT;
    for (int i = 0; i < 3; i++) if (!a[i] || !b[i]) return SP_FLOW_BAD_ARGUMENT;
    try {
        p->error.clear();
        for (int i = 0; i < 3; i++) {
            const cv::Size size = planeSize(p, i);
            cv::Mat(size, planeType(p), const_cast<uint8_t *>(a[i]), size_t(aStride[i])).copyTo(p->a[i]);
            cv::Mat(size, planeType(p), const_cast<uint8_t *>(b[i]), size_t(bStride[i])).copyTo(p->b[i]);
        }
        p->reliable = pairFlow(p, p->flowDivisor) ? 1 : 0;
        // Fine detail (one-pixel patterns) can vanish when luma is scaled down: before calling
        // the pair a cut, try again at full size. A scrolling cellular automaton went from
        // 5.5 dB (the nearer frame) to 18.68 dB this way (minterpolate: 18.72).
        if (!p->reliable && p->flowDivisor > 1) p->reliable = pairFlow(p, 1) ? 1 : 0;
        return SP_FLOW_OK;
    } catch (const std::exception &e) {
        p->error = e.what();
        p->reliable = -1;
        return SP_FLOW_FAILED;
    }
}

int sp_flow_render(SPFlowInterpolator *p, double t, uint8_t *const out[3], const int outStride[3]) {
    if (!p || !out || !outStride || !(t >= 0 && t <= 1)) return SP_FLOW_BAD_ARGUMENT;
    for (int i = 0; i < 3; i++) if (!out[i]) return SP_FLOW_BAD_ARGUMENT;
    if (p->reliable < 0) return SP_FLOW_NO_PAIR;
    try {
        p->error.clear();
        if (p->reliable == 0 || t == 0 || t == 1) {
            // No trustworthy motion (or no time between): the nearer picture, unchanged.
            const cv::Mat *nearer = t < 0.5 ? p->a : p->b;
            for (int i = 0; i < 3; i++) copyPlane(nearer[i], out[i], outStride[i]);
            return SP_FLOW_OK;
        }
        cv::Mat &fromA = p->fromA, &fromB = p->fromB;
        flowAtTime(p->flow, float(t), fromA, fromB, p->errorA, p->errorB, p->timeScratch);
        fuseAtTime(p->a[0], p->b[0], p->depth, float(t), fromA, fromB);
        occlusionShare(p->errorA, p->errorB, float(t), p->shareB, p->occlusionScratch);
        const float maximum = float((1 << p->depth) - 1);
        buildMaps(p->work[0], planeSize(p, 0), fromA, fromB, p->shareB, float(t));
        // Only where the flow was scaled down (see SymmetricRefine.cpp: at full size it gained
        // nothing, at high quality or on small pictures).
        if (p->flowDivisor > 1 &&
            symmetricRefine(p->a[0], p->b[0], p->work[0].mapA, p->work[0].mapB, p->shareB, float(t), fromA, fromB,
                            p->refineScratch)) {
            buildMaps(p->work[0], planeSize(p, 0), fromA, fromB, p->shareB, float(t));
        }
        buildMaps(p->work[1], planeSize(p, 1), fromA, fromB, p->shareB, float(t));
        // Lanczos at high quality: box +0.05 dB, carphone +0.02, tree -0.01 (mean +0.01), CPU +5%;
        // fast at Lanczos: box +0.06 for 35% more CPU a frame, dropped.
        p->work[0].sharpSampling = p->quality == SP_FLOW_QUALITY_HIGH ? cv::INTER_LANCZOS4 : cv::INTER_CUBIC;
        for (int i = 0; i < 3; i++) {
            PlaneWork &work = p->work[std::min(i, 1)];
            PlaneWork *chroma = i == 0 ? &p->work[1] : nullptr;
            if (p->depth > 8) {
                warpPlane<uint16_t>(work, p->a[i], p->b[i], float(t), i == 0, chroma, maximum, out[i], outStride[i]);
            } else {
                warpPlane<uint8_t>(work, p->a[i], p->b[i], float(t), i == 0, chroma, maximum, out[i], outStride[i]);
            }
        }
        return SP_FLOW_OK;
    } catch (const std::exception &e) {
        p->error = e.what();
        return SP_FLOW_FAILED;
    }
}

int sp_flow_seed(SPFlowInterpolator *p, const SPFlowInterpolator *previous) {
    if (!p || !previous) return SP_FLOW_BAD_ARGUMENT;
    if (previous->reliable < 0) return SP_FLOW_NO_PAIR;
    try {
        p->seeded = false;
        const cv::Size size((p->width + p->flowDivisor - 1) / p->flowDivisor, (p->height + p->flowDivisor - 1) / p->flowDivisor);
        // A cut or a flash seeds nothing, nor a flow of another size (another quality, or the
        // full-size retry).
        if (previous->reliable == 1 && previous->flow.forward.size() == size) {
            previous->flow.forward.copyTo(p->seedForward);
            previous->flow.backward.copyTo(p->seedBackward);
            p->seeded = true;
        }
        return SP_FLOW_OK;
    } catch (const std::exception &e) {
        p->error = e.what();
        return SP_FLOW_FAILED;
    }
}

int sp_flow_pair_reliable(const SPFlowInterpolator *p) { return p ? p->reliable : -1; }

const char *sp_flow_last_error(const SPFlowInterpolator *p) { return p ? p->error.c_str() : ""; }

void sp_flow_destroy(SPFlowInterpolator *p) { delete p; }

}
