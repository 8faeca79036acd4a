// bench/frame_drop.py's scorer: the FlowInterpolation C API on raw YUV 4:2:0 clips.
// Usage: frame_drop DIR QUALITY SEED NAME...; DIR holds NAME.yuv, NAME.size ("width,height") and
// NAME.mi.yuv (minterpolate's output on the even frames). Each odd frame is interpolated half way
// between its even neighbours and scored against the dropped frame, as ffmpeg's psnr filter
// scores (mean squared error over Y, U and V weighted by their sizes, averaged over the frames).
// Like the export, two interpolators take the pairs in turn, and with SEED 1 each pair's flow
// starts from the pair's before it (sp_flow_seed from the other interpolator).
// The clip named clip240 gets the check of ConstantRateExportTests instead.
#include "FlowInterpolation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {

double cpuSeconds() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

std::vector<uint8_t> readAll(const std::string &path) {
    std::vector<uint8_t> data;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return data;
    fseek(f, 0, SEEK_END);
    data.resize(size_t(ftell(f)));
    fseek(f, 0, SEEK_SET);
    if (fread(data.data(), 1, data.size(), f) != data.size()) data.clear();
    fclose(f);
    return data;
}

struct Clip {
    int width = 0, height = 0, chromaWidth = 0, chromaHeight = 0;
    size_t frameBytes = 0;
    std::vector<uint8_t> frames;
    int count() const { return int(frames.size() / frameBytes); }
    void planes(const std::vector<uint8_t> &data, int i, const uint8_t *p[3], int s[3]) const {
        const uint8_t *base = data.data() + frameBytes * size_t(i);
        p[0] = base;
        p[1] = base + size_t(width) * height;
        p[2] = p[1] + size_t(chromaWidth) * chromaHeight;
        s[0] = width;
        s[1] = s[2] = chromaWidth;
    }
    /// ffmpeg psnr's per-frame error: the planes' mean squared errors weighted by their sizes.
    double error(const uint8_t *a, const uint8_t *b) const {
        double sum = 0;
        for (size_t k = 0; k < frameBytes; k++) sum += (double(a[k]) - b[k]) * (double(a[k]) - b[k]);
        return sum / double(frameBytes);
    }
};

double psnr(double meanError) { return 10 * std::log10(255.0 * 255.0 / meanError); }

/// The in-between pictures of pairs 120-143 at t = 1/4, 1/2, 3/4 (the test's range 0.5-0.6 s
/// slowed 4x): how near the nearer of its two source pictures each comes, in mean luma levels.
void stutterCheck(const Clip &clip, SPFlowInterpolator *p, std::vector<uint8_t> &out, uint8_t *o[3], int os[3]) {
    double nearest = 1e9;
    int under = 0;
    for (int n = 120; n < 144; n++) {
        const uint8_t *a[3], *b[3];
        int as[3], bs[3];
        clip.planes(clip.frames, n, a, as);
        clip.planes(clip.frames, n + 1, b, bs);
        sp_flow_set_pair(p, a, as, b, bs);
        for (double t : {0.25, 0.5, 0.75}) {
            sp_flow_render(p, t, o, os);
            double da = 0, db = 0;
            const size_t luma = size_t(clip.width) * clip.height;
            for (size_t k = 0; k < luma; k++) {
                da += std::abs(int(out[k]) - int(a[0][k]));
                db += std::abs(int(out[k]) - int(b[0][k]));
            }
            const double d = std::min(da, db) / double(luma);
            nearest = std::min(nearest, d);
            if (d < 0.1) under++;
        }
    }
    printf("clip240  stutter check: in-between pictures at least %.3f from a source picture, %d of 72 under 0.1\n", nearest, under);
}

}

int main(int argc, char **argv) {
    if (argc < 5) return 2;
    const std::string dir = argv[1];
    const int quality = atoi(argv[2]);
    const bool seed = atoi(argv[3]) != 0;
    double sumDifference = 0;
    int scored = 0;
    for (int c = 4; c < argc; c++) {
        const std::string name = argv[c], base = dir + "/" + name;
        Clip clip;
        FILE *sf = fopen((base + ".size").c_str(), "r");
        if (!sf || fscanf(sf, "%d,%d", &clip.width, &clip.height) != 2) return 1;
        fclose(sf);
        clip.chromaWidth = (clip.width + 1) / 2;
        clip.chromaHeight = (clip.height + 1) / 2;
        clip.frameBytes = size_t(clip.width) * clip.height + 2 * size_t(clip.chromaWidth) * clip.chromaHeight;
        clip.frames = readAll(base + ".yuv");
        SPFlowInterpolator *two[2] = {nullptr, nullptr};
        for (SPFlowInterpolator *&q : two) {
            if (sp_flow_create(clip.width, clip.height, 8, 0, &q) != SP_FLOW_OK) return 1;
            sp_flow_set_quality(q, quality);
        }
        SPFlowInterpolator *p = two[0];
        std::vector<uint8_t> out(clip.frameBytes);
        uint8_t *o[3] = {out.data(), out.data() + size_t(clip.width) * clip.height,
                         out.data() + size_t(clip.width) * clip.height + size_t(clip.chromaWidth) * clip.chromaHeight};
        int os[3] = {clip.width, clip.chromaWidth, clip.chromaWidth};
        if (name == "clip240") {
            stutterCheck(clip, p, out, o, os);
            for (SPFlowInterpolator *q : two) sp_flow_destroy(q);
            continue;
        }
        const std::vector<uint8_t> theirs = readAll(base + ".mi.yuv");
        double ours = 0, mi = 0;
        int frames = 0, cuts = 0;
        // FRAME_DROP_DUMP=1 writes our in-between pictures to NAME.ours.yuv, for a look.
        FILE *dump = getenv("FRAME_DROP_DUMP") ? fopen((base + ".ours.yuv").c_str(), "wb") : nullptr;
        const double start = cpuSeconds();
        // minterpolate leaves out the last in-between frame: neither side is scored on it.
        for (int i = 1; i < clip.count() - 2 && size_t(i + 1) * clip.frameBytes <= theirs.size(); i += 2) {
            const uint8_t *a[3], *b[3];
            int as[3], bs[3];
            clip.planes(clip.frames, i - 1, a, as);
            clip.planes(clip.frames, i + 1, b, bs);
            SPFlowInterpolator *previous = p;
            p = two[(i / 2) % 2];
            if (seed && i > 1 && sp_flow_seed(p, previous) != SP_FLOW_OK) return 1;
            if (sp_flow_set_pair(p, a, as, b, bs) != SP_FLOW_OK || sp_flow_render(p, 0.5, o, os) != SP_FLOW_OK) {
                fprintf(stderr, "%s: %s\n", name.c_str(), sp_flow_last_error(p));
                return 1;
            }
            cuts += sp_flow_pair_reliable(p) == 0;
            if (dump) fwrite(out.data(), 1, out.size(), dump);
            const uint8_t *truth = clip.frames.data() + clip.frameBytes * size_t(i);
            ours += clip.error(out.data(), truth);
            mi += clip.error(theirs.data() + clip.frameBytes * size_t(i), truth);
            frames++;
        }
        const double cpu = cpuSeconds() - start;
        if (dump) fclose(dump);
        for (SPFlowInterpolator *q : two) sp_flow_destroy(q);
        const double po = psnr(ours / frames), pm = psnr(mi / frames);
        printf("%-8s %3d frames  minterpolate %6.2f dB  slowpoke %6.2f dB  %+6.2f dB  %5.1f ms CPU a frame  %d taken as cuts\n",
               name.c_str(), frames, pm, po, po - pm, 1000 * cpu / frames, cuts);
        // The guard clips (names starting "guard-") are reported, not counted in the corpus mean.
        if (name.rfind("guard-", 0) != 0) {
            sumDifference += po - pm;
            scored++;
        }
    }
    if (scored) printf("mean difference %+.2f dB over %d clips\n", sumDifference / scored, scored);
}
