internal import SignalSafety

public import Glibc


/// The process's signal handling (see SignalSafety.h): interrupts stop long work, a second one
/// or a watchdog ends the process, crashes leave no temporary file behind. Installed once, at
/// start-up, by the command line.
public enum Signals {
    /// Installs every handler; `watchdog` is how long an interrupted command may take to unwind.
    public static func install(watchdogMilliseconds: Int32 = 1000) {
        sp_signals_install(watchdogMilliseconds)
    }

    /// What stderr shows when a second interrupt or the watchdog ends the process (the
    /// graceful path prints its own message instead).
    public static func setInterruptMessage(_ text: String) {
        sp_signals_set_message(text)
    }

    /// Whether SIGINT or SIGTERM has arrived.
    public static var interrupted: Bool { sp_signals_interrupted() != 0 }

    /// Terminal settings to restore if a signal ends the process (nil: none).
    public static func saveTerminal(_ settings: Glibc.termios?) {
        if var settings { sp_signals_save_terminal(&settings) } else { sp_signals_save_terminal(nil) }
    }

    /// Marks `path` for removal if a signal ends the process before ``forget(_:)``: a file that
    /// must not outlive the work it stands for (a batch's journal of an output being written).
    public static func removeOnSignal(_ path: String) -> Int32 { sp_temporary_register(path) }

    /// Forgets a path given to ``removeOnSignal(_:)``.
    public static func forget(_ slot: Int32) { sp_temporary_unregister(slot) }

    /// Removes every temporary file still being written (for a command that fails).
    public static func removeTemporaryFiles() {
        sp_temporary_unlink_all()
    }
}
