// Where each side sees the in-between picture (see OcclusionShare.hpp). flowAtTime splats the
// pixels of A and of B forward to time t; a place no pixel of A lands on is what A does not see
// (background B uncovers, or what came in over the frame's edge), and the same for B. Those
// holes, cleared of isolated ones (a stretching flow leaves single-pixel gaps between splats),
// then softened, weigh the two warped pictures: (1 - t) x seenA of A against t x seenB of B.
// On the bench's footage corpus (bench/frame_drop.py) foliage (tree) gained 0.09 dB, the other
// clips within 0.01 (fast and high). Softened over 15 flow pixels; 3, 5 or 9 cost the fast pan
// (bikes) 0.03-0.06 dB, since its holes along the frame's edge are where the flow is least
// sure; not clearing single-pixel holes cost bikes 0.16. Also marking as hidden a place whose
// winner from one side failed its round trip (over 4x the tolerance) while the other side's
// held (within 1 or 2 flow pixels) changed nothing measurable: such places are 1% of vtest.
#include "OcclusionShare.hpp"

#include <cmath>
#include <opencv2/imgproc.hpp>

namespace slowpoke {

namespace {

/// Holes narrower than this many flow pixels are gaps between splats, not occlusions.
constexpr int narrowest = 3;
/// The seen masks are box-blurred over this many flow pixels.
constexpr int soften = 15;

/// 1 where a pixel of the picture landed, 0 in its wide holes, softened, into `result`.
void seen(const cv::Mat &error, OcclusionScratch &scratch, cv::Mat &result) {
    cv::Mat &hole = scratch.hole;
    hole.create(error.size(), CV_8U);
    for (int y = 0; y < error.rows; y++) {
        const float *e = error.ptr<float>(y);
        uint8_t *h = hole.ptr<uint8_t>(y);
        for (int x = 0; x < error.cols; x++) h[x] = std::isinf(e[x]) ? 255 : 0;
    }
    const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(narrowest, narrowest));
    cv::morphologyEx(hole, scratch.opened, cv::MORPH_OPEN, kernel);
    scratch.opened.convertTo(scratch.unblurred, CV_32F, -1.0 / 255, 1.0);
    cv::blur(scratch.unblurred, result, cv::Size(soften, soften), cv::Point(-1, -1), cv::BORDER_REPLICATE);
}

}

void occlusionShare(const cv::Mat &errorA, const cv::Mat &errorB, float t, cv::Mat &shareB, OcclusionScratch &scratch) {
    CV_Assert(errorA.size() == errorB.size() && errorA.type() == CV_32F && errorB.type() == CV_32F);
    seen(errorA, scratch, scratch.seenA);
    seen(errorB, scratch, scratch.seenB);
    const cv::Mat &seenA = scratch.seenA, &seenB = scratch.seenB;
    shareB.create(errorA.size(), CV_32F);
    for (int y = 0; y < shareB.rows; y++) {
        const float *a = seenA.ptr<float>(y), *b = seenB.ptr<float>(y);
        float *s = shareB.ptr<float>(y);
        for (int x = 0; x < shareB.cols; x++) {
            const float wa = (1 - t) * a[x], wb = t * b[x];
            // Neither side sees it (both splats left a hole): the mix by time.
            s[x] = wa + wb > 1e-4f ? wb / (wa + wb) : t;
        }
    }
}

}
