// The C API of FlowInterpolation.h: one source pair's flow (OpenCV's DIS, both ways, on luma
// scaled down), then any number of in-between pictures warped from it (see TimeFlow.hpp).
#include "FlowInterpolation.h"
#include "TimeFlow.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

using namespace slowpoke;

struct SPFlowInterpolator {
    int width = 0, height = 0, depth = 8;
    /// Flow resolution: the picture divided by this.
    int flowDivisor = 1;
    cv::Size flowSize;
    cv::Ptr<cv::DISOpticalFlow> dis;
    /// The pair's planes Y, U, V (CV_8U, or CV_16U for 10-bit).
    cv::Mat a[3], b[3];
    PairFlow flow;
    int reliable = -1;
    std::string error;
};

namespace {

/// A pair is unreliable (a cut, a flash) when after warping one picture onto the other more
/// than `unexplained` of its pixels still differ by more than `residualLevel` (8-bit levels),
/// or more than `unexplainedWithWildFlow` do while the flows both ways disagree (round trips
/// missing by over a flow pixel) on more than `wildFlow` of the picture. Measured: pairs of
/// moving footage leave at most 3% unexplained; a cut between two look-alike textures 34%,
/// with 77% of round trips missing.
constexpr double unexplained = 0.15, unexplainedWithWildFlow = 0.05, wildFlow = 0.6;
constexpr int residualLevel = 24;

cv::Size planeSize(const SPFlowInterpolator *p, int plane) {
    return plane == 0 ? cv::Size(p->width, p->height) : cv::Size((p->width + 1) / 2, (p->height + 1) / 2);
}

int planeType(const SPFlowInterpolator *p) { return p->depth > 8 ? CV_16UC1 : CV_8UC1; }

/// Luma as 8 bits at the flow's resolution.
cv::Mat flowLuma(const SPFlowInterpolator *p, const cv::Mat &luma) {
    cv::Mat eight, small;
    if (p->depth > 8) luma.convertTo(eight, CV_8U, 1.0 / (1 << (p->depth - 8))); else eight = luma;
    if (p->flowDivisor == 1) return eight.clone();
    cv::resize(eight, small, p->flowSize, 0, 0, cv::INTER_AREA);
    return small;
}

/// The share of pixels of `to` that `from` warped along `flow` misses by more than residualLevel.
double residualShare(const cv::Mat &from, const cv::Mat &to, const cv::Mat &flow) {
    cv::Mat map(flow.size(), CV_32FC2), warped, difference;
    for (int y = 0; y < flow.rows; y++) {
        const cv::Vec2f *f = flow.ptr<cv::Vec2f>(y);
        cv::Vec2f *m = map.ptr<cv::Vec2f>(y);
        for (int x = 0; x < flow.cols; x++) m[x] = cv::Vec2f(x + f[x][0], y + f[x][1]);
    }
    cv::remap(from, warped, map, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::absdiff(warped, to, difference);
    return double(cv::countNonZero(difference > residualLevel)) / double(difference.total());
}

/// The share of pixels whose round trip misses by more than a flow pixel.
double inconsistentShare(const cv::Mat &error) {
    return double(cv::countNonZero(error > 1.0f)) / double(error.total());
}

/// Bilinear sample of a plane at (x, y), clamped to its edges.
template <typename T> inline float sample(const cv::Mat &plane, float x, float y) {
    x = std::min(std::max(x, 0.0f), float(plane.cols - 1));
    y = std::min(std::max(y, 0.0f), float(plane.rows - 1));
    const int x0 = int(x), y0 = int(y);
    const int x1 = std::min(x0 + 1, plane.cols - 1), y1 = std::min(y0 + 1, plane.rows - 1);
    const float fx = x - x0, fy = y - y0;
    const T *r0 = plane.ptr<T>(y0), *r1 = plane.ptr<T>(y1);
    const float top = r0[x0] + fx * (float(r0[x1]) - float(r0[x0]));
    const float bottom = r1[x0] + fx * (float(r1[x1]) - float(r1[x0]));
    return top + fy * (bottom - top);
}

/// One output plane: A warped back by t, B forward by 1 - t, mixed by weightB. The flow fields
/// are already at the plane's size, `scale` turns flow pixels into plane pixels.
template <typename T>
void warpPlane(const cv::Mat &a, const cv::Mat &b, const cv::Mat &fromA, const cv::Mat &fromB, const cv::Mat &weightB,
               float t, float scale, float maximum, uint8_t *out, int stride) {
    cv::parallel_for_(cv::Range(0, a.rows), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const cv::Vec2f *fa = fromA.ptr<cv::Vec2f>(y), *fb = fromB.ptr<cv::Vec2f>(y);
            const float *w = weightB.ptr<float>(y);
            T *o = reinterpret_cast<T *>(out + size_t(y) * size_t(stride));
            for (int x = 0; x < a.cols; x++) {
                const float pa = sample<T>(a, x - t * scale * fa[x][0], y - t * scale * fa[x][1]);
                const float pb = sample<T>(b, x + (1 - t) * scale * fb[x][0], y + (1 - t) * scale * fb[x][1]);
                const float v = pa + w[x] * (pb - pa) + 0.5f;
                o[x] = T(std::min(std::max(v, 0.0f), maximum));
            }
        }
    });
}

void copyPlane(const cv::Mat &plane, uint8_t *out, int stride) {
    const size_t bytes = size_t(plane.cols) * plane.elemSize();
    for (int y = 0; y < plane.rows; y++) std::memcpy(out + size_t(y) * size_t(stride), plane.ptr(y), bytes);
}

}

extern "C" {

int sp_flow_create(int width, int height, int bitDepth, int threads, SPFlowInterpolator **out) {
    if (!out) return SP_FLOW_BAD_ARGUMENT;
    *out = nullptr;
    if (width < 32 || height < 32 || width % 2 || height % 2) return SP_FLOW_BAD_SIZE;
    if (bitDepth != 8 && bitDepth != 10) return SP_FLOW_BAD_DEPTH;
    try {
        auto *p = new SPFlowInterpolator();
        p->width = width;
        p->height = height;
        p->depth = bitDepth;
        // Flow on luma at most about 640 pixels wide: DIS finds the motion of 1080p footage as
        // well at a third of its size (its coarsest levels do the work) in a ninth of the time.
        p->flowDivisor = std::max(1, (width + 639) / 640);
        p->flowSize = cv::Size((width + p->flowDivisor - 1) / p->flowDivisor, (height + p->flowDivisor - 1) / p->flowDivisor);
        p->dis = cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
        if (threads > 0) cv::setNumThreads(threads);
        *out = p;
        return SP_FLOW_OK;
    } catch (const std::exception &) {
        return SP_FLOW_FAILED;
    }
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
        const cv::Mat lumaA = flowLuma(p, p->a[0]), lumaB = flowLuma(p, p->b[0]);
        p->dis->calc(lumaA, lumaB, p->flow.forward);
        p->dis->calc(lumaB, lumaA, p->flow.backward);
        p->flow.forwardError = roundTripError(p->flow.forward, p->flow.backward);
        p->flow.backwardError = roundTripError(p->flow.backward, p->flow.forward);
        const double residual = std::min(residualShare(lumaB, lumaA, p->flow.forward), residualShare(lumaA, lumaB, p->flow.backward));
        const double inconsistent = std::min(inconsistentShare(p->flow.forwardError), inconsistentShare(p->flow.backwardError));
        if (getenv("SP_FLOW_DEBUG")) fprintf(stderr, "residual %.3f  inconsistent %.3f\n", residual, inconsistent);
        p->reliable = residual > unexplained || (residual > unexplainedWithWildFlow && inconsistent > wildFlow) ? 0 : 1;
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
        cv::Mat fromA, fromB, weightB;
        flowAtTime(p->flow, float(t), fromA, fromB, weightB);
        for (int i = 0; i < 3; i++) {
            const cv::Size size = planeSize(p, i);
            cv::Mat planeA, planeB, planeWeight;
            cv::resize(fromA, planeA, size, 0, 0, cv::INTER_LINEAR);
            cv::resize(fromB, planeB, size, 0, 0, cv::INTER_LINEAR);
            cv::resize(weightB, planeWeight, size, 0, 0, cv::INTER_LINEAR);
            const float scale = float(size.width) / float(p->flowSize.width);
            if (p->depth > 8) {
                warpPlane<uint16_t>(p->a[i], p->b[i], planeA, planeB, planeWeight, float(t), scale, float((1 << p->depth) - 1), out[i], outStride[i]);
            } else {
                warpPlane<uint8_t>(p->a[i], p->b[i], planeA, planeB, planeWeight, float(t), scale, float((1 << p->depth) - 1), out[i], outStride[i]);
            }
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
