import ArgumentParser
import Composition
import Project
import Export
import Foundation
import Preview
import SafeFiles
import TimePitch

/// The root command. Subcommands live one per file; each turns its flags into library calls.
struct Slowpoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slowpoke",
        abstract: "Retime movies: slow a section to quarter speed, speed up another, and export the result.",
        discussion: """
            slowpoke keeps your edits in a project document, <movie>.slowpoke, beside the movie. \
            The movie itself is never changed.

            A first session:
              slowpoke open clip.mp4                      # creates clip.slowpoke
              slowpoke scale --range 3.2-5.0 --rate 0.25  # 3.2-5.0 s at quarter speed
              slowpoke info                               # the timeline, every segment
              slowpoke export                             # clip-slowpoke.mp4, all frames
              slowpoke preview                            # play; keys change rate, pitch
              slowpoke undo                               # changed your mind

            Times are seconds (3.2, 3.2s, 500ms, 1m3.2s), fractions (1/3), timecodes \
            (00:01:03.200), `end`, `end-2s` or a percentage of the timeline (25%). \
            Rates (--rate or --speed) are decimals (0.25) or fractions (1/4), from 1/32 to 32.
            When the document is left out, slowpoke uses the only *.slowpoke in the current folder.
            """,
        version: "0.1.0",
        subcommands: [Open.self, Info.self, Scale.self, RampCommand.self, FreezeCommand.self, SlomoCommand.self, ReverseCommand.self, Remove.self, InsertGap.self, Undo.self, Redo.self, History.self, Verify.self, Stretch.self, ExportMovie.self, StillCommand.self, OTIOCommand.self, Batch.self, PreviewMovie.self]
    )
}
