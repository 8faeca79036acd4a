/* A second, independent H.264 decoder for the tests: Cisco's OpenH264 decodes an Annex B
 * stream (stdin) and writes every picture it outputs, as packed I420, to stdout. It exits 1
 * naming the first access unit OpenH264 reports an error for. Built by the tests with
 * `cc openh264-decode.c -lopenh264` (Debian's libopenh264-dev). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wels/codec_api.h>

static int emit(unsigned char **planes, SBufferInfo *info) {
    if (info->iBufferStatus != 1) return 0;
    int w = info->UsrData.sSystemBuffer.iWidth, h = info->UsrData.sSystemBuffer.iHeight;
    for (int p = 0; p < 3; p++) {
        int pw = p ? w / 2 : w, ph = p ? h / 2 : h;
        int stride = info->UsrData.sSystemBuffer.iStride[p ? 1 : 0];
        for (int y = 0; y < ph; y++) fwrite(planes[p] + y * stride, 1, pw, stdout);
    }
    return 1;
}

int main(void) {
    size_t cap = 1 << 20, len = 0, n;
    unsigned char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len, stdin)) > 0) {
        len += n;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    ISVCDecoder *decoder;
    if (WelsCreateDecoder(&decoder) != 0) return 2;
    SDecodingParam param;
    memset(&param, 0, sizeof param);
    param.sVideoProperty.eVideoBsType = VIDEO_BITSTREAM_AVC;
    if ((*decoder)->Initialize(decoder, &param) != 0) return 2;
    /* NAL units one at a time, start code included, as OpenH264's own console decoder does. */
    size_t start = 0, frames = 0, units = 0;
    for (size_t i = 0; i + 3 <= len; ) {
        size_t next = i + 3;
        while (next + 3 <= len && !(buf[next] == 0 && buf[next + 1] == 0 && buf[next + 2] == 1)) next++;
        if (next + 3 > len) next = len;
        size_t end = next < len && next > 0 && buf[next - 1] == 0 ? next - 1 : next;
        unsigned char *planes[3] = {0};
        SBufferInfo info;
        memset(&info, 0, sizeof info);
        DECODING_STATE state = (*decoder)->DecodeFrameNoDelay(decoder, buf + start, (int)(end - start), planes, &info);
        units++;
        if (state != dsErrorFree) { fprintf(stderr, "openh264: error 0x%x at NAL unit %zu (picture %zu)\n", state, units, frames); return 1; }
        frames += emit(planes, &info);
        start = end;
        i = next;
    }
    /* Pictures still held for reordering. */
    int remaining = 0;
    (*decoder)->GetOption(decoder, DECODER_OPTION_NUM_OF_FRAMES_REMAINING_IN_BUFFER, &remaining);
    for (int k = 0; k < remaining; k++) {
        unsigned char *planes[3] = {0};
        SBufferInfo info;
        memset(&info, 0, sizeof info);
        (*decoder)->FlushFrame(decoder, planes, &info);
        frames += emit(planes, &info);
    }
    fprintf(stderr, "openh264: %zu pictures\n", frames);
    (*decoder)->Uninitialize(decoder);
    WelsDestroyDecoder(decoder);
    return 0;
}
