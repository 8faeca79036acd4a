// The C API of FlowInterpolation.h: one source pair's flow (OpenCV's DIS, both ways, on luma
// scaled down), then any number of in-between pictures warped from it (see TimeFlow.hpp).
#include "FlowInterpolation.h"
#include "FlowResolution.hpp"
#include "OcclusionShare.hpp"
#include "PlaneWarp.hpp"
#include "SymmetricRefine.hpp"
#include "TimeFlow.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

using namespace slowpoke;

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
        for (int k = 0; k < 2; k++) dis[k].release();
    }
    p->seeded = false;
    // Made here and only here: anew for an unseeded pair (above), after a change of quality,
    // and for each full-size retry (released after it).
    for (int k = 0; k < 2; k++) if (!dis[k]) dis[k] = makeDIS(p->quality);
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
        for (cv::Ptr<cv::DISOpticalFlow> &dis : p->dis) dis.release();
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
        if (!p->reliable && p->flowDivisor > 1) {
            p->reliable = pairFlow(p, 1) ? 1 : 0;
            // The full-size DIS objects hold their pyramids and refinement buffers at the
            // picture's size (at 1080p some 200 MB each): kept between retries, the 1080p corpus
            // export of bench.py (cuts, a flash, a fade) peaked at 1248 MB with two a direction,
            // against 794 MB before there were two. Retries are rare (a cut, a flash): made
            // anew each time (see pairFlow).
            for (cv::Ptr<cv::DISOpticalFlow> &dis : p->fullSizeDis) dis.release();
        }
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
            warpPlane(work, p->a[i], p->b[i], float(t), i == 0, chroma, maximum, out[i], outStride[i]);
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
