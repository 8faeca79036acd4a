#!/usr/bin/env python3
"""Writes slowpoke's man page (mdoc) from `slowpoke --experimental-dump-help` on stdin.

The page is made from the same text as `--help`, so it cannot drift from the code: `make man`
refreshes the committed slowpoke.1, `make install` installs what the built binary says, and a
test fails when the committed page differs from what this script makes. It adds what --help
has no place for: exit status, environment and files. --help and --version are listed once.
"""
import json
import sys

DATE = "November 26, 2026"  # change with the page's structure, not with every build
GLOBAL = {"help", "version"}


def escape(text):
    """A line of text as mdoc reads it: backslashes escaped, no line starting a macro."""
    text = text.replace("\\", "\\e")
    # groff reads ASCII: other characters (→, ÷, ·) by their Unicode names.
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    return "\\&" + text if text.startswith((".", "'")) else text


def quoted(word):
    """A value name as one macro argument: `doc|movie` stays one word."""
    return '"' + word.replace('"', "") + '"'


def prose(text):
    """--help's discussion: blank lines are paragraphs, lines indented by two spaces examples."""
    out, literal = [], False
    for line in text.split("\n"):
        if not line.strip():
            if literal:
                out.append(".Ed")
                literal = False
            out.append(".Pp")
        elif line.startswith("  "):
            if not literal:
                out.append(".Bd -literal -offset indent")
                literal = True
            out.append(escape(line[2:]))
        else:
            if literal:
                out.append(".Ed")
                literal = False
            out.append(escape(line))
    if literal:
        out.append(".Ed")
    while out and out[-1] == ".Pp":
        out.pop()
    return out


def names(argument):
    return [n for n in argument.get("names", [])]


def is_global(argument):
    return any(n["name"] in GLOBAL for n in names(argument))


def item(argument):
    """The .It line of one option, flag or positional argument."""
    value = argument.get("valueName", "")
    if argument["kind"] == "positional":
        return ".It Ar " + quoted(value)
    spelled = []
    for n in names(argument):
        spelled.append(("Fl " if n["kind"] == "short" else "Fl -") + n["name"])
    line = ".It " + " , ".join(spelled)
    if argument["kind"] == "option":
        line += " Ar " + quoted(value)
    return line


def usage(path, command):
    parts = [".Nm " + " ".join(path[1:])] if len(path) > 1 else [".Nm"]
    for argument in command.get("arguments", []):
        if not argument.get("shouldDisplay", True) or is_global(argument):
            continue
        if argument["kind"] == "positional":
            word = "Ar " + quoted(argument["valueName"])
        else:
            first = names(argument)[0] if names(argument) else {"kind": "long", "name": argument.get("valueName", "")}
            word = ("Fl " if first["kind"] == "short" else "Fl -") + first["name"]
            if argument["kind"] == "option":
                word += " Ar " + quoted(argument["valueName"])
        parts.append(("Op " + word) if argument.get("isOptional") else word)
    return [" ".join(parts)]


def command_section(path, command):
    out = [".Ss " + " ".join(path[1:]), ".Bd -ragged"] + usage(path, command) + [".Ed", escape(command.get("abstract", ""))]
    if command.get("discussion"):
        out += [".Pp"] + prose(command["discussion"])
    arguments = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True) and not is_global(a)]
    if arguments:
        out.append(".Bl -tag -width 6n")
        for argument in arguments:
            out.append(item(argument))
            text = argument.get("abstract", "")
            if argument.get("defaultValue") and "default" not in text.lower():
                text += " (default: " + argument["defaultValue"] + ")"
            out.append(escape(text))
            if argument.get("discussion"):
                out += [".Pp"] + prose(argument["discussion"])
        out.append(".El")
    for child in command.get("subcommands", []):
        if child.get("shouldDisplay", True) and child["commandName"] != "help":
            out += command_section(path + [child["commandName"]], child)
    return out


def page(dump):
    root = dump["command"]
    out = [
        ".Dd " + DATE, ".Dt SLOWPOKE 1", ".Os",
        ".Sh NAME", ".Nm slowpoke", ".Nd " + escape(root.get("abstract", "")),
        ".Sh SYNOPSIS", ".Nm", ".Ar command", ".Op Ar arguments",
        ".Nm", ".Fl -help | Fl -version",
        ".Sh DESCRIPTION",
    ]
    out += prose(root.get("discussion", ""))
    out += [
        ".Pp", "Every command takes", ".Fl h , -help", "(its help, with examples);", ".Nm",
        ".Fl -version", "prints the version.",
        ".Sh COMMANDS",
    ]
    for child in root.get("subcommands", []):
        if child.get("shouldDisplay", True) and child["commandName"] != "help":
            out += command_section(["slowpoke", child["commandName"]], child)
    out += [
        ".Sh ENVIRONMENT",
        ".Bl -tag -width 6n",
        ".It Ev DISPLAY , WAYLAND_DISPLAY",
        "The display",
        ".Cm preview",
        "opens its window on; without one it refuses (use",
        ".Fl -no-video ) .",
        ".It Ev SDL_VIDEODRIVER , SDL_AUDIODRIVER",
        "SDL's drivers for the preview's window and sound, as SDL reads them; naming a video driver",
        "(offscreen, say) lets the preview open a window without a display.",
        ".It Ev TMPDIR",
        "Where",
        ".Cm batch",
        "keeps its scratch folders (slowpoke-scratch-<pid>-...).",
        ".It Ev SLOWPOKE_RB_DEBUG",
        "Set, Rubber Band prints its debugging output on stderr.",
        ".El",
        ".Sh FILES",
        ".Bl -tag -width 6n",
        ".It Pa <movie-stem>.slowpoke",
        "The project document beside the movie: the timeline and its edit history.",
        ".It Pa .<output>.slowpoke-tmp-<pid>-<random>",
        "An output being written, renamed into place when complete; removed on failure, interrupt or",
        "crash, and by a later run when its process is gone.",
        ".It Pa .<output>.slowpoke-batch",
        "What",
        ".Cm batch",
        "recorded about an output it wrote, so that a rerun skips what is up to date.",
        ".El",
        ".Sh EXIT STATUS",
        ".Bl -tag -width 6n",
        ".It 0", "Success.",
        ".It 1", "The command could not be done: bad input, a broken document, a media error. Nothing was changed.",
        ".It 64", "The command line is wrong: an unknown command or option, a malformed value.",
        ".It 130", "Interrupted by SIGINT or SIGTERM; no partial output is left behind.",
        ".El",
        ".Sh SEE ALSO",
        ".Xr ffmpeg 1 ,",
        ".Xr ffprobe 1 ,",
        ".Xr rubberband 1",
    ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(page(json.load(sys.stdin)))
