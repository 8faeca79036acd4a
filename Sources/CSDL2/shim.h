#ifndef SLOWPOKE_CSDL2_SHIM_H
#define SLOWPOKE_CSDL2_SHIM_H

#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>

/* Swift cannot import function-like macros; these wrap the ones Preview needs. */
static inline int sp_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline Uint32 sp_sdl_init_flags(int video) {
    return video ? (SDL_INIT_AUDIO | SDL_INIT_VIDEO | SDL_INIT_EVENTS) : (SDL_INIT_AUDIO | SDL_INIT_EVENTS);
}

static inline SDL_AudioFormat sp_audio_f32sys(void) { return AUDIO_F32SYS; }

#endif
