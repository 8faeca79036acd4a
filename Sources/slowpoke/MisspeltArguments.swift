import ArgumentParser
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
        let known = options(of: command)
        for argument in rest {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            let name = String(argument.prefix(while: { $0 != "=" }))
            guard !known.contains(name) else { continue }
            let near = NearestName.nearest(to: name, in: Array(known).sorted(), limit: 3)
            throw Failure(description: "\(path.joined(separator: " ")) has no option '\(name)'\(near.map { "; did you mean '\($0)'?" } ?? "")\nSee '\(path.joined(separator: " ")) --help' for its options.")
        }
        // --speed is --rate's other name: both given would silently take the last.
        let names = Set(rest.prefix { $0 != "--" }.map { String($0.prefix(while: { $0 != "=" })) })
        if names.contains("--rate") && names.contains("--speed") {
            throw Failure(description: "\(path.joined(separator: " ")) was given both --rate and --speed, which are one option; give one")
        }
    }

    private static func subcommands(of command: any ParsableCommand.Type) -> [(name: String, type: any ParsableCommand.Type)] {
        var found: [(name: String, type: any ParsableCommand.Type)] = []
        for child in configuration(of: command).subcommands { found.append((commandName(of: child), child)) }
        return found
    }

    private static func configuration<C: ParsableCommand>(of command: C.Type) -> CommandConfiguration { C.configuration }
    private static func commandName<C: ParsableCommand>(of command: C.Type) -> String { C._commandName }

    /// Every long option `command` takes, read from its help (ArgumentParser offers no other
    /// public way), plus the ones every command has.
    static func options(of command: any ParsableCommand.Type) -> Set<String> {
        var names: Set<String> = ["--help", "--version", "--generate-completion-script", "--experimental-dump-help"]
        let help = Slowpoke.helpMessage(for: command, columns: 1000)
        var word = ""
        for character in help + " " {
            if character.isLetter || character.isNumber || character == "-" {
                word.append(character)
            } else {
                if word.hasPrefix("--"), word.count > 2 { names.insert(word) }
                word = ""
            }
        }
        return names
    }
}
