import ArgumentParser
import Foundation
import Project

/// Names a misspelt command or option first, with the nearest known one (`slowpoke exprt`:
/// did you mean `export`?), before ArgumentParser would complain about something else (a
/// missing `--range` when `--rnage` was typed). Exit status 64, as for any usage error.
enum MisspeltArguments {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Throws when `arguments` (without the program's name) name an unknown command or option.
    static func check(_ arguments: [String]) throws(Failure) {
        var command: any ParsableCommand.Type = Slowpoke.self
        var path = ["slowpoke"]
        var rest = arguments[...]
        // The subcommands named first (`otio import`).
        while let word = rest.first, !word.hasPrefix("-") {
            let children = subcommands(of: command)
            guard !children.isEmpty else { break }
            guard let child = children.first(where: { $0.name == word })?.type else {
                let names = children.map(\.name) + ["help"]
                if names.contains(word) { return }
                let near = NearestName.nearest(to: word, in: names)
                throw Failure(description: "\(path.joined(separator: " ")) has no command '\(word)'\(near.map { "; did you mean '\($0)'?" } ?? "")\nSee '\(path.joined(separator: " ")) --help' for the commands.")
            }
            command = child
            path.append(word)
            rest = rest.dropFirst()
        }
        try checkOptions(Array(rest), of: command, path: path.joined(separator: " "))
    }

    /// Names an unknown option, long (`--rnage`) or short (`-r`), and refuses an option that
    /// takes one value given twice (ArgumentParser would silently keep the last).
    private static func checkOptions(_ words: [String], of command: any ParsableCommand.Type, path: String) throws(Failure) {
        let known = options(of: command)
        var seen: [Int: String] = [:]
        var index = 0
        while index < words.count, words[index] != "--" {
            let word = words[index]
            index += 1
            guard word.hasPrefix("-"), word.count > 1, !isNumber(word) else { continue }
            let name = String(word.prefix(while: { $0 != "=" }))
            guard let option = known.byName[name] else {
                throw Failure(description: "\(path) has no option '\(name)'\(suggestion(for: name, in: known).map { "; did you mean \($0)?" } ?? "")\nSee '\(path) --help' for its options.")
            }
            guard option.takesValue else { continue }
            if !word.contains("=") { index += 1 }
            if !option.repeats, let first = seen[option.id] {
                throw Failure(description: first == name
                    ? "\(path) was given \(name) twice; it takes one value\(known.byName["--range"]?.repeats == true ? " (several ranges go in --range, which may be given again)" : "")"
                    : "\(path) was given both \(first) and \(name), which are one option; give one")
            }
            seen[option.id] = name
        }
    }

    /// `-3`, `-0.5`: a value, not an option.
    private static func isNumber(_ word: String) -> Bool {
        word.dropFirst().first.map { $0.isNumber || $0 == "." } ?? false
    }

    /// The long options a mistyped name most likely meant: the nearest by spelling, or for a
    /// short one (`-r`) those that start with its letter.
    private static func suggestion(for name: String, in known: Options) -> String? {
        let longs = known.byName.keys.filter { $0.hasPrefix("--") }.sorted()
        if name.hasPrefix("--") { return NearestName.nearest(to: name, in: longs, limit: 3).map { "'\($0)'" } }
        let starting = longs.filter { $0.dropFirst(2).first == name.dropFirst().first && !["--help", "--version"].contains($0) }
        guard !starting.isEmpty else { return nil }
        return starting.prefix(3).map { "'\($0)'" }.joined(separator: " or ")
    }

    private static func subcommands(of command: any ParsableCommand.Type) -> [(name: String, type: any ParsableCommand.Type)] {
        var found: [(name: String, type: any ParsableCommand.Type)] = []
        for child in configuration(of: command).subcommands { found.append((commandName(of: child), child)) }
        return found
    }

    private static func configuration<C: ParsableCommand>(of command: C.Type) -> CommandConfiguration { C.configuration }
    private static func commandName<C: ParsableCommand>(of command: C.Type) -> String { C._commandName }

    /// The options of a command: each name (`--rate`, `--speed`, `-o`) with the option it belongs
    /// to, whether it takes a value and whether it may be given again.
    struct Options {
        struct Option { let id: Int; let takesValue: Bool; let repeats: Bool }
        var byName: [String: Option] = [:]
    }

    /// Every option `command` takes, read from ArgumentParser's description of it (the JSON of
    /// `--experimental-dump-help`; it offers no other public way), plus the ones every command has.
    static func options(of command: any ParsableCommand.Type) -> Options {
        var known = Options()
        for (id, name) in ["--help", "-h", "--version", "--generate-completion-script", "--experimental-dump-help"].enumerated() {
            known.byName[name] = .init(id: -1 - id, takesValue: name == "--generate-completion-script", repeats: false)
        }
        struct Dump: Decodable {
            struct Command: Decodable { let arguments: [Argument]? }
            struct Argument: Decodable { let kind: String; let isRepeating: Bool; let names: [Name]? }
            struct Name: Decodable { let kind: String; let name: String }
            let command: Command
        }
        guard let dump = try? JSONDecoder().decode(Dump.self, from: Data(dumpHelp(of: command).utf8)) else { return known }
        for (id, argument) in (dump.command.arguments ?? []).enumerated() where argument.kind != "positional" {
            for name in argument.names ?? [] {
                let dashed = (name.kind == "long" ? "--" : "-") + name.name
                known.byName[dashed] = .init(id: id, takesValue: argument.kind == "option", repeats: argument.isRepeating)
            }
        }
        return known
    }

    private static func dumpHelp<C: ParsableCommand>(of command: C.Type) -> String { C._dumpHelp() }
}
