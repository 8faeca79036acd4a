// The in-between picture's planes (see PlaneWarp.hpp): sampling maps from the flow at time t,
// then both pictures warped along them and mixed, with the region trust, the bicubic share and
// the blur along fast motion that the comments below measure.
#include "PlaneWarp.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "MotionBlur.hpp"

namespace slowpoke {

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

namespace {

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
void warpPlaneAs(PlaneWork &work, const cv::Mat &a, const cv::Mat &b, float t, bool sharp, PlaneWork *chroma,
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

}

void warpPlane(PlaneWork &work, const cv::Mat &a, const cv::Mat &b, float t, bool sharp, PlaneWork *chroma,
               float maximum, uint8_t *out, int stride) {
    if (a.depth() == CV_16U) warpPlaneAs<uint16_t>(work, a, b, t, sharp, chroma, maximum, out, stride);
    else warpPlaneAs<uint8_t>(work, a, b, t, sharp, chroma, maximum, out, stride);
}

}
