#include "SignalSafety.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <termios.h>
#include <unistd.h>

// A slot is free (0), being filled or emptied (1), or holds a path a handler may unlink (2).
static atomic_int slot_state[SP_TEMPORARY_SLOTS];
static char slot_path[SP_TEMPORARY_SLOTS][SP_TEMPORARY_PATH];

static volatile sig_atomic_t interrupted = 0;
static char message[1024];
static volatile sig_atomic_t message_length = 0;
static volatile sig_atomic_t terminal_saved = 0;
static struct termios terminal;

int sp_temporary_register(const char *path) {
    size_t length = strlen(path);
    if (length >= SP_TEMPORARY_PATH) return -1;
    for (int slot = 0; slot < SP_TEMPORARY_SLOTS; slot++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&slot_state[slot], &expected, 1)) {
            memcpy(slot_path[slot], path, length + 1);
            atomic_store(&slot_state[slot], 2);
            return slot;
        }
    }
    return -1;
}

void sp_temporary_unregister(int slot) {
    if (slot < 0 || slot >= SP_TEMPORARY_SLOTS) return;
    atomic_store(&slot_state[slot], 1);
    slot_path[slot][0] = 0;
    atomic_store(&slot_state[slot], 0);
}

void sp_temporary_unlink_all(void) {
    for (int slot = 0; slot < SP_TEMPORARY_SLOTS; slot++) {
        if (atomic_load(&slot_state[slot]) == 2) unlink(slot_path[slot]);
    }
}

static void restore_terminal(void) {
    if (terminal_saved) tcsetattr(STDIN_FILENO, TCSANOW, &terminal);
}

static void leave_now(int signal_number) {
    (void)signal_number;
    sp_temporary_unlink_all();
    restore_terminal();
    if (message_length > 0) {
        ssize_t ignored = write(STDERR_FILENO, message, (size_t)message_length);
        (void)ignored;
    }
    _exit(130);
}

static int watchdog = 1000;

static void on_interrupt(int signal_number) {
    if (interrupted) leave_now(signal_number);
    interrupted = 1;
    // Long work checks the flag and unwinds within a progress step; anything blocked (a FIFO,
    // a device, a stuck library call) is ended by the watchdog instead.
    struct itimerval timer = {{0, 0}, {watchdog / 1000, (watchdog % 1000) * 1000}};
    setitimer(ITIMER_REAL, &timer, NULL);
}

/* "slowpoke: error: crashed (signal 11, SIGSEGV)\n": a crash in C code (a library) prints nothing
   else, as this handler takes the place of Swift's backtracer. Built by hand: signal-safe. */
static void say_crashed(int signal_number) {
    static const char *names[32] = {[SIGSEGV] = "SIGSEGV", [SIGBUS] = "SIGBUS", [SIGILL] = "SIGILL",
                                    [SIGTRAP] = "SIGTRAP", [SIGFPE] = "SIGFPE", [SIGABRT] = "SIGABRT"};
    char line[96] = "slowpoke: error: crashed (signal ";
    size_t n = strlen(line);
    if (signal_number >= 10) line[n++] = (char)('0' + signal_number / 10 % 10);
    line[n++] = (char)('0' + signal_number % 10);
    const char *name = signal_number > 0 && signal_number < 32 && names[signal_number] ? names[signal_number] : "";
    if (*name) { line[n++] = ','; line[n++] = ' '; }
    for (; *name && n < sizeof line - 3; name++) line[n++] = *name;
    line[n++] = ')';
    line[n++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, n);
    (void)ignored;
}

static void on_crash(int signal_number) {
    sp_temporary_unlink_all();
    restore_terminal();
    say_crashed(signal_number);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

void sp_signals_install(int watchdog_milliseconds) {
    watchdog = watchdog_milliseconds > 0 ? watchdog_milliseconds : 1000;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    // No SA_RESTART: a blocking call returns EINTR, so the flag is seen.
    action.sa_handler = on_interrupt;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    action.sa_handler = leave_now;
    sigaction(SIGALRM, &action, NULL);
    action.sa_handler = on_crash;
    action.sa_flags = SA_NODEFER | SA_RESETHAND;
    int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
    for (unsigned i = 0; i < sizeof crashes / sizeof crashes[0]; i++) sigaction(crashes[i], &action, NULL);
    // A parent may have started us with signals blocked (a test runner blocks SIGABRT): a
    // blocked crash signal sent from outside would wait, and the process would run on.
    sigset_t set;
    sigemptyset(&set);
    for (unsigned i = 0; i < sizeof crashes / sizeof crashes[0]; i++) sigaddset(&set, crashes[i]);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int sp_signals_interrupted(void) { return interrupted; }

void sp_signals_set_message(const char *text) {
    size_t length = strlen(text);
    if (length >= sizeof message) length = sizeof message - 1;
    message_length = 0;
    memcpy(message, text, length);
    message[length] = 0;
    message_length = (sig_atomic_t)length;
}

void sp_signals_save_terminal(const struct termios *settings) {
    if (settings) {
        terminal_saved = 0;
        terminal = *settings;
        terminal_saved = 1;
    } else {
        terminal_saved = 0;
    }
}
