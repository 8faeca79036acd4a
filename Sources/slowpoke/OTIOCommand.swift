import ArgumentParser
import Composition
import Project
import Interchange
import Export
import Foundation
import SafeFiles

struct OTIOCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otio",
        abstract: "Exchange timelines with OpenTimelineIO tools (DaVinci Resolve, Kdenlive, otiotool).",
        discussion: """
            `otio export` writes the timeline as OpenTimelineIO JSON: one track per media type, \
            one clip per segment (its source_range starts at the media's in-point and lasts as \
            long as the clip plays; a retimed clip has a LinearTimeWarp whose time_scalar is the \
            segment's rate, as OTIO's EDL and AAF adapters read it), gaps for inserted gaps, and \
            a reference to the movie. \
            `otio import` reads such a timeline back into a slowpoke document, including ones \
            written by other tools. Round trips are exact: exact times travel in the clips' \
            metadata as well.

            Examples:
              slowpoke otio export -o timeline.otio
              slowpoke otio import timeline.otio -o clip.slowpoke
            """,
        subcommands: [OTIOExport.self, OTIOImport.self])
}
