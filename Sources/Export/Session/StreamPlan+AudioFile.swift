import Foundation
import Composition
internal import CFFmpeg
import Media

extension StreamPlan {
    /// The plan of an audio-only export (``AudioExporter``) to a `.container` file: the
    /// source's audio stream copied when the timeline leaves it untouched and the file's codec
    /// is its own, otherwise retimed and encoded as the file's codec; every other stream left out,
    /// since an audio file holds one stream.
    init(audioFileOf input: InputFormatContext, source: ExportSource, container: String) {
        self.container = container
        videoIndex = nil
        subtitles = []
        overhangs = [:]
        chapters = Int(input.pointer.pointee.nb_chapters)
        let audio = source.media.primaryAudio?.index
        let file = Container(audioFile: container)
        let untouched = source.timeline.tracks.allSatisfy { ExportSession.playsSourceUntouched($0.segments) }
        let changes = source.media.primaryAudio?.formatChanges
        codecNotes = audio.flatMap { a in changes.map { [a: AudioFormatChange.summary($0) + "; it is encoded whole"] } } ?? [:]
        entries = (0..<input.streamCount).map { i in
            let parameters = input.stream(i).parameters.pointee
            let kind = av_get_media_type_string(parameters.codec_type).map { String(cString: $0) } ?? "data"
            let codec = String(cString: LibAVCodec.codecName(parameters.codec_id))
            guard i == audio, let file else {
                return Entry(index: i, kind: kind, codec: codec, fate: .leftOut, detail: "a .\(container) file holds one audio stream")
            }
            let choice = AudioCodecChoice(audioFile: file, source: parameters, defaultBitRate: 0)
            if untouched && parameters.codec_id == choice.codec && changes == nil {
                return Entry(index: i, kind: kind, codec: codec, fate: .copied, detail: "copied: the timeline leaves it untouched")
            }
            let written = String(cString: LibAVCodec.codecName(choice.codec))
            return Entry(index: i, kind: kind, codec: codec, fate: .retimed, detail: "retimed through the timeline, encoded as \(written)")
        }
    }
}
