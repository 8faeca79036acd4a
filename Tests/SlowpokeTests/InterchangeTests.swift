import Foundation
import TestSupport
import Testing

/// An OTIO RationalTime as seconds, read with Foundation's JSON reader.
private func otioSeconds(_ value: Any?) -> Double {
    let t = value as? [String: Any] ?? [:]
    return ((t["value"] as? NSNumber)?.doubleValue ?? .nan) / ((t["rate"] as? NSNumber)?.doubleValue ?? .nan)
}

/// An exact time string from `info --json` (`"3.2"`, `"7/3"`) as a double.
private func infoSeconds(_ value: Any?) -> Double {
    guard let text = value as? String else { return .nan }
    let parts = text.split(separator: "/")
    if parts.count == 2, let a = Double(parts[0]), let b = Double(parts[1]) { return a / b }
    return Double(text) ?? .nan
}

@Suite struct OTIOCommandTests {
    /// The exported OTIO, read independently, matches `info --json` clip by clip.
    @Test func exportMatchesTheTimelineAndRoundTripsExactly() throws {
        let folder = try folderWithDocument()
        try slowpoke("scale", "--range", "3.2-5.0", "--rate", "1/3", in: folder)
        try slowpoke("insert-gap", "--at", "1", "--duration", "0.5", in: folder)
        let exported = try slowpoke("otio", "export", "-o", "timeline.otio", in: folder)
        #expect(exported.status == 0, "\(exported.stderr)")
        let text = try String(contentsOf: folder.file("timeline.otio"), encoding: .utf8)
        let root = try json(text)
        let info = try json(slowpoke("info", "--json", in: folder).stdout)
        let infoTracks = try #require(info["tracks"] as? [[String: Any]])
        let stack = try #require(root["tracks"] as? [String: Any])
        let tracks = try #require(stack["children"] as? [[String: Any]])
        #expect(tracks.map { $0["kind"] as? String } == ["Video", "Audio"])
        for (track, infoTrack) in zip(tracks, infoTracks) {
            let children = try #require(track["children"] as? [[String: Any]])
            let segments = try #require(infoTrack["segments"] as? [[String: Any]])
            #expect(children.count == segments.count)
            for (child, segment) in zip(children, segments) {
                let range = try #require(child["source_range"] as? [String: Any])
                if let source = segment["source"] as? [String: Any] {
                    // OTIO's convention: the media's in-point, and the clip's length in the track.
                    let target = try #require(segment["target"] as? [String: Any])
                    #expect(abs(otioSeconds(range["start_time"]) - infoSeconds(source["start"])) < 1e-12)
                    #expect(abs(otioSeconds(range["duration"]) - infoSeconds(target["duration"])) < 1e-12)
                    let effects = try #require(child["effects"] as? [[String: Any]])
                    if segment["rate"] as? String == "1" {
                        #expect(effects.isEmpty)
                    } else {
                        let scalar = (effects.first?["time_scalar"] as? NSNumber)?.doubleValue ?? .nan
                        #expect(effects.first?["OTIO_SCHEMA"] as? String == "LinearTimeWarp.1")
                        #expect(abs(scalar - infoSeconds(segment["rate"])) < 1e-15)
                        #expect(abs(otioSeconds(range["duration"]) * scalar - infoSeconds(source["duration"])) < 1e-12)
                    }
                    let references = try #require(child["media_references"] as? [String: Any])
                    let reference = try #require(references["DEFAULT_MEDIA"] as? [String: Any])
                    #expect(reference["target_url"] as? String == folder.file("clip.mp4").standardizedFileURL.absoluteString)
                } else {
                    #expect(child["OTIO_SCHEMA"] as? String == "Gap.1")
                    let target = try #require(segment["target"] as? [String: Any])
                    #expect(abs(otioSeconds(range["duration"]) - infoSeconds(target["duration"])) < 1e-12)
                }
            }
        }

        // Import into a new document, export again: the same bytes and the same timeline.
        let imported = try slowpoke("otio", "import", "timeline.otio", "-o", "back.slowpoke", in: folder)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try slowpoke("otio", "export", "back.slowpoke", "-o", "again.otio", in: folder).status == 0)
        #expect(try String(contentsOf: folder.file("again.otio"), encoding: .utf8) == text)
        let back = try json(slowpoke("info", "back.slowpoke", "--json", in: folder).stdout)
        func canonical(_ value: Any?) throws -> Data { try JSONSerialization.data(withJSONObject: value ?? [], options: [.sortedKeys]) }
        #expect(try canonical(back["tracks"]) == canonical(info["tracks"]))
        #expect(back["duration"] as? String == info["duration"] as? String)
        // The imported document's edits can be undone one by one, back to the whole movie.
        while try slowpoke("undo", "back.slowpoke", in: folder).status == 0 {}
        #expect(try json(slowpoke("info", "back.slowpoke", "--json", in: folder).stdout)["duration"] as? String == "10")
    }

    /// Stacked edits whose times have large denominators (a 0.3x scale, a smooth 2x-to-1/7x
    /// ramp, a freeze at 1/3 s, a cut) still export: an OTIO range is a start and a duration,
    /// and their sum, which no file stores, once overflowed exact arithmetic. The OTIO, read as
    /// JSON, is as long as the timeline, and it round-trips.
    @Test func stackedEditsWithLargeDenominatorsExport() throws {
        let folder = try folderWithDocument()
        try slowpoke("scale", "--range", "0.5-1.3", "--rate", "0.3", in: folder)
        try slowpoke("ramp", "--range", "3-3.7", "--from", "2", "--to", "1/7", "--ease", "smooth", in: folder)
        try slowpoke("freeze", "--at", "1/3", "--duration", "0.77", in: folder)
        try slowpoke("remove", "--range", "4.1-4.3", in: folder)
        let exported = try slowpoke("otio", "export", "-o", "t.otio", in: folder)
        #expect(exported.status == 0, "\(exported.stderr)")
        let info = try json(slowpoke("info", "--json", in: folder).stdout)
        let root = try json(String(contentsOf: folder.file("t.otio"), encoding: .utf8))
        let tracks = try #require((root["tracks"] as? [String: Any])?["children"] as? [[String: Any]])
        let video = try #require(tracks.first?["children"] as? [[String: Any]])
        let length = video.reduce(0.0) { $0 + otioSeconds(($1["source_range"] as? [String: Any])?["duration"]) }
        #expect(video.count > 10 && abs(length - infoSeconds(info["duration"])) < 1e-9, "\(length) s against \(String(describing: info["duration"]))")
        #expect(try slowpoke("otio", "import", "t.otio", "-o", "back.slowpoke", in: folder).status == 0)
        let back = try json(slowpoke("info", "back.slowpoke", "--json", in: folder).stdout)
        #expect(infoSeconds(back["duration"]) == infoSeconds(info["duration"]))
    }

    @Test func aHandWrittenTimelineWithTwoWarpedClipsAndAGapImports() throws {
        let folder = try TemporaryFolder("otio")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        func rt(_ v: Int) -> String { "{\"OTIO_SCHEMA\": \"RationalTime.1\", \"rate\": 30, \"value\": \(v)}" }
        func clip(_ name: String, _ start: Int, _ duration: Int, _ scalar: Double) -> String {
            """
            {"OTIO_SCHEMA": "Clip.2", "name": "\(name)", "source_range": {"OTIO_SCHEMA": "TimeRange.1", "start_time": \(rt(start)), "duration": \(rt(duration))},
             "effects": [{"OTIO_SCHEMA": "LinearTimeWarp.1", "effect_name": "LinearTimeWarp", "time_scalar": \(scalar)}],
             "media_references": {"DEFAULT_MEDIA": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "clip.mp4"}},
             "active_media_reference_key": "DEFAULT_MEDIA"}
            """
        }
        let gap = "{\"OTIO_SCHEMA\": \"Gap.1\", \"source_range\": {\"OTIO_SCHEMA\": \"TimeRange.1\", \"start_time\": \(rt(0)), \"duration\": \(rt(45))}}"
        // Durations are lengths in the track: 4 s (120 frames) at 1/4 consumes 2-3 s, 1 s at 2x 5-7 s.
        let text = """
            {"OTIO_SCHEMA": "Timeline.1", "name": "cut", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [
              {"OTIO_SCHEMA": "Track.1", "kind": "Video", "name": "V1", "children": [\(clip("slow", 60, 120, 0.25)), \(gap), \(clip("fast", 150, 30, 2.0))]}]}}
            """
        try Data(text.utf8).write(to: folder.file("cut.otio"))
        let result = try slowpoke("otio", "import", "cut.otio", "-o", "cut.slowpoke", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        let info = try json(slowpoke("info", "cut.slowpoke", "--json", in: folder).stdout)
        let tracks = try #require(info["tracks"] as? [[String: Any]])
        #expect(tracks.count == 2)
        for track in tracks {
            let segments = try #require(track["segments"] as? [[String: Any]])
            let rows = segments.map { s -> String in
                let target = s["target"] as? [String: String] ?? [:]
                let source = (s["source"] as? [String: String]).map { "\($0["start"]!)+\($0["duration"]!)" } ?? "gap"
                return "\(target["start"]!)+\(target["duration"]!) \(source) \(s["rate"] as? String ?? "")"
            }
            // 2-3 s at 1/4 (4 s), a 1.5 s gap, 5-7 s at 2x (1 s).
            #expect(rows == ["0+4 2+1 0.25", "4+1.5 gap ", "5.5+1 5+2 2"])
        }
        #expect(info["duration"] as? String == "6.5")
    }

    @Test func aFreezeFrameImportsAsAHold() throws {
        let folder = try TemporaryFolder("otio")
        try folder.copy(media: "clip60.mp4", as: "clip.mp4")
        let text = """
            {"OTIO_SCHEMA": "Timeline.1", "name": "cut", "tracks": {"OTIO_SCHEMA": "Stack.1", "children": [
              {"OTIO_SCHEMA": "Track.1", "kind": "Video", "name": "V1", "children": [
                {"OTIO_SCHEMA": "Clip.2", "name": "hold", "source_range": {"OTIO_SCHEMA": "TimeRange.1",
                  "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 30, "value": 0}, "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 30, "value": 30}},
                 "effects": [{"OTIO_SCHEMA": "FreezeFrame.1", "effect_name": "FreezeFrame", "time_scalar": 0}],
                 "media_references": {"DEFAULT_MEDIA": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "clip.mp4"}},
                 "active_media_reference_key": "DEFAULT_MEDIA"}]}]}}
            """
        try Data(text.utf8).write(to: folder.file("hold.otio"))
        let result = try slowpoke("otio", "import", "hold.otio", "-o", "hold.slowpoke", in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported hold.otio into hold.slowpoke: 2 edit(s), the timeline is now 1 s\n", "\(result.stdout)")
        let info = try slowpoke("info", "hold.slowpoke", in: folder).stdout
        #expect(info.contains("  1   0 - 1         0 (held)   freeze\n"), "\(info)")
    }

    @Test func exportRefusesToReplaceAFileWithoutForce() throws {
        let folder = try folderWithDocument()
        try Data("keep".utf8).write(to: folder.file("t.otio"))
        let result = try slowpoke("otio", "export", "-o", "t.otio", in: folder)
        #expect(result.status == 1)
        #expect(result.stderr == "slowpoke: error: t.otio already exists; use --force to replace it\n")
        #expect(try String(contentsOf: folder.file("t.otio"), encoding: .utf8) == "keep")
        #expect(try slowpoke("otio", "export", "-o", "t.otio", "--force", in: folder).status == 0)
    }
}

@Suite struct CompletionAndManualTests {
    @Test func theBashCompletionLoadsAndCompletesSubcommands() throws {
        let script = try TemporaryFolder("completion")
        let bash = try TestSupport.run(TestSupport.slowpoke, ["--generate-completion-script", "bash"])
        #expect(bash.status == 0)
        try Data(bash.stdout.utf8).write(to: script.file("slowpoke.bash"))
        // Bash calls a completion function with the command, the current word and the previous one.
        let check = try TestSupport.tool("bash", ["-c", """
            set -e
            source "\(script.file("slowpoke.bash").path)"
            complete -p slowpoke
            complete_line() {
                COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$1"
                [[ "$1" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
                _slowpoke slowpoke "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
                echo "$1|${COMPREPLY[*]}"
            }
            complete_line "slowpoke ot"
            complete_line "slowpoke otio "
            complete_line "slowpoke export --algorithm "
            complete_line "slowpoke batch --progress j"
            """])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stderr.isEmpty, "\(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "complete -o filenames -F _slowpoke slowpoke")
        #expect(lines.dropFirst() == ["slowpoke ot|otio", "slowpoke otio |--version -h --help export import",
                                      "slowpoke export --algorithm |spectral timeDomain varispeed", "slowpoke batch --progress j|json"])
        for shell in ["zsh", "fish"] {
            let result = try TestSupport.run(TestSupport.slowpoke, ["--generate-completion-script", shell])
            #expect(result.status == 0)
            #expect(result.stdout.contains("batch") && result.stdout.contains("otio"))
        }
    }

    // man renders in ASCII, and troff then complains about every "…" and "◀", where LANG is
    // unset (a debootstrap or container Debian); the page is UTF-8, so it is read as UTF-8.
    @Test func theManPageRendersAndCoversEveryCommandAndFlag() throws {
        let page = TestSupport.root.appendingPathComponent("slowpoke.1")
        let rendered = try TestSupport.run(URL(fileURLWithPath: "/usr/bin/env"), ["MANPAGER=cat", "MANWIDTH=100", "LC_ALL=C.UTF-8", "man", "./slowpoke.1"],
                                           in: TestSupport.root)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        #expect(rendered.stdout.contains("SLOWPOKE(1)"))
        let groff = try TestSupport.tool("groff", ["-man", "-Tutf8", "-ww", "-z", page.path])
        #expect(groff.status == 0 && groff.stderr.isEmpty, "\(groff.stderr)")

        // Every command and every long flag in the binary's help appears in the page, so a
        // flag added without `make man` fails here.
        let text = try String(contentsOf: page, encoding: .utf8)
        let dump = try TestSupport.run(TestSupport.slowpoke, ["--experimental-dump-help"])
        let tool = try json(dump.stdout)
        var missing: [String] = []
        func visit(_ command: [String: Any]) {
            if let name = command["commandName"] as? String, !text.contains(name) { missing.append(name) }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    if let long = name["name"] as? String, !text.contains("-\(long)") { missing.append("--\(long)") }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { visit(sub) }
        }
        visit(try #require(tool["command"] as? [String: Any]))
        #expect(missing.isEmpty, "slowpoke.1 is out of date (run `make man`): \(missing)")

        // And it is exactly the page tools/manual.py makes from this binary's help.
        let generated = try TestSupport.run(URL(fileURLWithPath: "/bin/sh"),
                                            ["-c", "'\(TestSupport.slowpoke.path)' --experimental-dump-help | python3 tools/manual.py"],
                                            in: TestSupport.root)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stdout == text, "slowpoke.1 differs from what `make man` makes from the code's --help; run `make man`")
        #expect(text.contains(".Sh EXIT STATUS") && text.contains(".It 64") && text.contains(".It 130") && text.contains(".Sh ENVIRONMENT"))
    }

    /// --help's examples are written for 80 columns: no example line is wider, so none wraps.
    @Test func helpExamplesFitEightyColumns() throws {
        let dump = try json(try TestSupport.run(TestSupport.slowpoke, ["--experimental-dump-help"]).stdout)
        var wide: [String] = [], checked = 0
        func visit(_ command: [String: Any], _ path: String) {
            for line in ((command["discussion"] as? String) ?? "").split(separator: "\n") where line.hasPrefix("  ") {
                checked += 1
                if line.count > 80 { wide.append("\(path): \(line)") }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { visit(sub, path + " " + ((sub["commandName"] as? String) ?? "")) }
        }
        visit(try #require(dump["command"] as? [String: Any]), "slowpoke")
        #expect(checked >= 30, "only \(checked) example lines found")
        #expect(wide.isEmpty, "\(wide)")
    }
}

@Suite struct InfoSchemaTests {
    struct Field { let path: String; let type: String; let always: Bool }

    /// The schema table in docs/info-json.md.
    func documentedFields() throws -> [Field] {
        let text = try String(contentsOf: TestSupport.root.appendingPathComponent("docs/info-json.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1].hasPrefix("`") else { return nil }
            return Field(path: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), type: cells[2], always: cells[3] == "always")
        }
    }

    /// Every value at `path` (with `[]` for array elements) in `value`, or nil where a parent holds it but it is absent.
    func values(at path: [String], in value: Any) -> [Any?] {
        guard let head = path.first else { return [value] }
        let rest = Array(path.dropFirst())
        if head.hasSuffix("[]") {
            let key = String(head.dropLast(2))
            guard let array = (value as? [String: Any])?[key] as? [Any] else { return [nil] }
            return array.flatMap { values(at: rest, in: $0) }
        }
        guard let object = value as? [String: Any] else { return [] }
        guard let child = object[head] else { return rest.isEmpty ? [nil] : [] }
        return values(at: rest, in: child)
    }

    func hasType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "string": return value is String
        case "integer": return value is NSNumber
        case "number": return value is NSNumber
        case "boolean": return value is NSNumber
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "time", "rational":
            guard let text = value as? String else { return false }
            if type == "time" && ["+inf", "-inf", "indefinite", "invalid"].contains(text) { return true }
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            return (1...2).contains(parts.count) && parts.allSatisfy { Double($0) != nil }
        default: return false
        }
    }

    /// Every path in `value`, as the table writes it.
    func paths(_ value: Any, prefix: String = "") -> Set<String> {
        var found: Set<String> = []
        if let object = value as? [String: Any] {
            for (key, child) in object {
                let path = prefix.isEmpty ? key : "\(prefix).\(key)"
                found.insert(path)
                if let array = child as? [Any] {
                    for element in array { found.formUnion(paths(element, prefix: path + "[]")) }
                } else {
                    found.formUnion(paths(child, prefix: path))
                }
            }
        }
        return found
    }

    @Test(arguments: ["clip60.mp4", "noaudio.mp4", "rotated.mp4"])
    func outputMatchesTheDocumentedSchemaBothWays(movie: String) throws {
        let fields = try documentedFields()
        #expect(fields.count > 40)
        let folder = try TemporaryFolder("schema")
        try folder.copy(media: movie, as: "clip.mp4")
        try slowpoke("open", "clip.mp4", in: folder)
        try slowpoke("insert-gap", "--at", "1", "--duration", "1/3", in: folder)
        try slowpoke("scale", "--range", "2-3", "--rate", "0.5", in: folder)
        try slowpoke("freeze", "--at", "5", "--duration", "1", in: folder)
        let output = try slowpoke("info", "--json", in: folder).stdout
        let info = try json(output)
        #expect(info["schemaVersion"] as? Int == 1)
        // Foundation's reader on Linux returns JSON booleans and numbers alike as NSNumber, so
        // scalar number types are also checked on the text: every `"key" : value` of the field.
        for field in fields where ["integer", "number", "boolean"].contains(field.type) {
            let key = field.path.split(separator: ".").last.map { String($0).replacingOccurrences(of: "[]", with: "") } ?? ""
            let pattern = try Regex("\"\(key)\" : ([^,\\n}]+)")
            let matches = output.matches(of: pattern)
            #expect(!field.always || !matches.isEmpty, "\(field.path) does not appear in the text")
            for match in matches {
                let token = String(match.output[1].substring ?? "")
                switch field.type {
                case "boolean": #expect(token == "true" || token == "false", "\(field.path) is \(token)")
                case "integer": #expect(Int(token) != nil, "\(field.path) is \(token)")
                default: #expect(Double(token) != nil, "\(field.path) is \(token)")
                }
            }
        }
        for field in fields {
            for value in values(at: field.path.split(separator: ".").map(String.init), in: info) {
                if let value {
                    #expect(hasType(value, field.type), "\(field.path) should be \(field.type), is \(value)")
                } else {
                    #expect(!field.always, "\(field.path) is documented as always present")
                }
            }
        }
        let documented = Set(fields.map(\.path))
        let undocumented = paths(info).subtracting(documented)
        #expect(undocumented.isEmpty, "fields missing from docs/info-json.md: \(undocumented.sorted())")
    }
}
