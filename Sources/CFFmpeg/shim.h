#ifndef SLOWPOKE_CFFMPEG_SHIM_H
#define SLOWPOKE_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/timecode.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/* Swift cannot import function-like macros; these wrap the ones slowpoke needs. */
static inline int sp_averror(int e) { return AVERROR(e); }
static inline int sp_averror_eof(void) { return AVERROR_EOF; }
static inline int sp_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int sp_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t sp_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int sp_av_time_base(void) { return AV_TIME_BASE; }

/* av_err2str uses a compound literal; this writes into a caller buffer instead. */
static inline const char *sp_av_err2str(int errnum, char *buffer, size_t size) {
    av_strerror(errnum, buffer, size);
    return buffer;
}

#endif
