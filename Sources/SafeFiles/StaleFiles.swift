public import Foundation

/// What dead slowpoke processes left behind: a temporary output (`.<name>.slowpoke-tmp-<pid>-…`)
/// or a scratch folder (`slowpoke-scratch-<pid>-…`) of a process killed with SIGKILL (the OOM
/// killer, a scheduler's grace period), which no handler could remove. Each name carries its
/// writer's process id; a file whose writer is gone is removed, one whose writer lives (or
/// whose id was reused) is left alone.
public enum StaleFiles {
    /// Removes the entries of `folder` named `<prefix><pid>-…` whose process no longer exists;
    /// folders with what they hold. Returns how many went.
    @discardableResult
    public static func remove(in folder: URL, prefix: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            // Exactly `<prefix><pid>-<tag>`: digits, a dash, then letters, digits and dashes.
            let rest = name.dropFirst(prefix.count)
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            let tag = rest.dropFirst(digits.count)
            guard tag.first == "-", tag.count > 1, tag.dropFirst().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }),
                  let pid = Int32(digits), pid > 0, pid != getpid(), !isAlive(pid) else { continue }
            if (try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))) != nil { removed += 1 }
        }
        return removed
    }

    /// The prefix of `target`'s temporary files (see ``OutputFile``).
    static func temporaryPrefix(of target: URL) -> String { ".\(target.lastPathComponent).slowpoke-tmp-" }

    /// Whether a process with this id exists (`kill(pid, 0)`: EPERM means it does, but is another user's).
    static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
