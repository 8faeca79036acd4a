// sp_flow_merge (FlowMerge.h): align neighbours to a reference with DIS optical flow, then
// average them in where they agree with it.
#include "FlowMerge.h"
#include "FlowInterpolation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

namespace {

cv::Size planeSize(int width, int height, int plane) {
    return plane == 0 ? cv::Size(width, height) : cv::Size((width + 1) / 2, (height + 1) / 2);
}

/// One plane of a picture as float, borrowed from the caller's memory and converted.
cv::Mat plane(const uint8_t *data, int stride, cv::Size size, int depth) {
    cv::Mat borrowed(size, depth > 8 ? CV_16UC1 : CV_8UC1, const_cast<uint8_t *>(data), size_t(stride));
    cv::Mat values;
    borrowed.convertTo(values, CV_32F);
    return values;
}

/// Luma as 8 bits and lightly smoothed, which the flow follows better through noise.
cv::Mat flowLuma(const cv::Mat &luma, int depth) {
    cv::Mat eight, smooth;
    luma.convertTo(eight, CV_8U, 1.0 / double(1 << (depth - 8)));
    cv::GaussianBlur(eight, smooth, cv::Size(5, 5), 1.2);
    return smooth;
}

/// `values` sampled at x + flow(x) (flow in luma pixels; `scale` maps it to this plane).
cv::Mat warp(const cv::Mat &values, const cv::Mat &flow, float scale) {
    cv::Mat field;
    if (flow.size() == values.size()) field = flow; else cv::resize(flow, field, values.size(), 0, 0, cv::INTER_LINEAR);
    cv::Mat map(values.size(), CV_32FC2);
    for (int y = 0; y < map.rows; y++) {
        const cv::Vec2f *f = field.ptr<cv::Vec2f>(y);
        cv::Vec2f *m = map.ptr<cv::Vec2f>(y);
        for (int x = 0; x < map.cols; x++) m[x] = cv::Vec2f(x + scale * f[x][0], y + scale * f[x][1]);
    }
    cv::Mat warped;
    cv::remap(values, warped, map, cv::noArray(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    return warped;
}

/// How much each pixel of an aligned neighbour counts: 1 where its local difference from the
/// reference is what noise alone gives, falling to 0 at three times that (motion the flow
/// missed, an occlusion). The noise level is the median local difference over the picture.
cv::Mat agreement(const cv::Mat &reference, const cv::Mat &aligned, float floor) {
    cv::Mat difference, local;
    cv::absdiff(reference, aligned, difference);
    cv::blur(difference, local, cv::Size(7, 7));
    std::vector<float> samples;
    samples.reserve(local.total() / 16 + 1);
    for (int y = 0; y < local.rows; y += 4) {
        const float *row = local.ptr<float>(y);
        for (int x = 0; x < local.cols; x += 4) samples.push_back(row[x]);
    }
    std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
    const float typical = std::max(samples[samples.size() / 2], floor);
    cv::Mat weight = (local - 1.5f * typical) * (-1.0f / (1.5f * typical)) + 1.0f;
    cv::min(weight, 1.0f, weight);
    cv::max(weight, 0.0f, weight);
    return weight;
}

}  // namespace

extern "C" int sp_flow_merge(int width, int height, int bitDepth, int count,
                             const uint8_t *const *planes, const int *strides,
                             uint8_t *const out[3], const int outStride[3],
                             double *used, char *error, int errorSize) {
    if (!planes || !strides || !out || !outStride || count < 1) return SP_FLOW_BAD_ARGUMENT;
    if (width < 32 || height < 32) return SP_FLOW_BAD_SIZE;
    if (bitDepth != 8 && bitDepth != 10) return SP_FLOW_BAD_DEPTH;
    try {
        std::vector<cv::Mat> reference(3), sum(3), weights(3);
        for (int c = 0; c < 3; c++) {
            reference[c] = plane(planes[c], strides[c], planeSize(width, height, c), bitDepth);
            sum[c] = reference[c].clone();
            weights[c] = cv::Mat::ones(reference[c].size(), CV_32F);
        }
        const cv::Mat referenceLuma = flowLuma(reference[0], bitDepth);
        auto dis = cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_MEDIUM);
        const float floor = 0.5f * float(1 << (bitDepth - 8));
        double weightSum = 0;
        for (int n = 1; n < count; n++) {
            std::vector<cv::Mat> neighbour(3);
            for (int c = 0; c < 3; c++) {
                neighbour[c] = plane(planes[3 * n + c], strides[3 * n + c], planeSize(width, height, c), bitDepth);
            }
            // Where each reference pixel is in the neighbour.
            cv::Mat flow;
            dis->calc(referenceLuma, flowLuma(neighbour[0], bitDepth), flow);
            const cv::Mat aligned = warp(neighbour[0], flow, 1.0f);
            const cv::Mat weight = agreement(reference[0], aligned, floor);
            weightSum += cv::mean(weight)[0];
            cv::Mat chromaWeight;
            cv::resize(weight, chromaWeight, reference[1].size(), 0, 0, cv::INTER_AREA);
            for (int c = 0; c < 3; c++) {
                const cv::Mat &w = c == 0 ? weight : chromaWeight;
                const cv::Mat warped = c == 0 ? aligned : warp(neighbour[c], flow, 0.5f);
                cv::Mat product;
                cv::multiply(warped, w, product);
                sum[c] += product;
                weights[c] += w;
            }
        }
        const double maximum = double((1 << bitDepth) - 1);
        for (int c = 0; c < 3; c++) {
            cv::Mat mean, result;
            cv::divide(sum[c], weights[c], mean);
            mean.convertTo(result, bitDepth > 8 ? CV_16U : CV_8U);
            if (bitDepth > 8) cv::min(result, maximum, result);
            cv::Mat target(result.size(), result.type(), out[c], size_t(outStride[c]));
            result.copyTo(target);
        }
        if (used) *used = count > 1 ? weightSum / double(count - 1) : 0;
        return SP_FLOW_OK;
    } catch (const std::exception &e) {
        if (error && errorSize > 0) std::snprintf(error, size_t(errorSize), "%s", e.what());
        return SP_FLOW_FAILED;
    }
}
