// What slowpoke does when a signal arrives, written in C so that every handler is
// async-signal-safe by construction: a fixed array of temporary paths (no allocation, no locks
// in a handler), `unlink`, `tcsetattr`, `_exit` and re-raising, nothing else.
#ifndef SLOWPOKE_SIGNAL_SAFETY_H
#define SLOWPOKE_SIGNAL_SAFETY_H

#include <termios.h>

/// How many temporary files can be registered at once; a file registered past that is still
/// removed by its owner, only not by a signal handler.
#define SP_TEMPORARY_SLOTS 256
/// The longest path a slot holds (PATH_MAX).
#define SP_TEMPORARY_PATH 4096

/// Registers `path` (a temporary file being written) for removal if the process is
/// interrupted or crashes. Returns its slot, or -1 when every slot is taken or the path is too long.
int sp_temporary_register(const char *path);
/// Forgets the slot (the file was renamed into place or removed by its owner).
void sp_temporary_unregister(int slot);
/// Removes every registered temporary file. Async-signal-safe.
void sp_temporary_unlink_all(void);

/// Installs the handlers: SIGINT and SIGTERM set the interrupted flag (checked by long work,
/// which then unwinds and cleans up) and arm a one-second watchdog; a second SIGINT/SIGTERM,
/// or the watchdog, removes the temporary files, restores the terminal and exits with 130.
/// SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE and SIGABRT remove the temporary files, restore
/// the terminal and re-raise with the default action (the crash is reported by its signal, and
/// no crash reporter is left to hang a pipeline). Unblocks every signal it handles.
void sp_signals_install(int watchdog_milliseconds);
/// Whether SIGINT or SIGTERM has arrived.
int sp_signals_interrupted(void);
/// What the process writes on stderr when a second interrupt or the watchdog ends it (a copy
/// is kept; at most 1023 bytes). Empty by default.
void sp_signals_set_message(const char *message);
/// Terminal settings to put back on standard input before exiting from a handler (raw mode in
/// `preview --no-video`); NULL forgets them.
void sp_signals_save_terminal(const struct termios *settings);

#endif
