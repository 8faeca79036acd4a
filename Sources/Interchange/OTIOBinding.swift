public import Foundation
import SafeFiles

extension OTIOTimeline {
    /// The one movie file every clip plays.
    ///
    /// With `movie` (`otio import --movie`), a clip is bound to it when its reference is a
    /// `MissingReference` (EDL and AAF imports leave media unlinked) or an `ExternalReference`
    /// to a file of the same name, wherever that file was; a clip naming another file is an
    /// error that names the clip and the file. Names alone do not make a file the same: clips
    /// referring to two different files of one name (`camA/C0001.MP4`, `camB/C0001.MP4`), or
    /// unlinked clips from two different reels of an EDL, are refused, listing them. Without
    /// `movie`, every clip must refer to the same file: a relative `target_url` resolves
    /// against `folder`, the .otio file's folder.
    public func movie(given movie: URL?, relativeTo folder: URL) throws(OTIOError) -> URL {
        let clips = self.clips
        if let movie {
            let name = movie.lastPathComponent
            for clip in clips {
                guard let url = clip.targetURL else { continue }
                let other = Self.fileName(of: url)
                guard other == name else {
                    throw .unsupported("\(clip.label) refers to \(other) (\(url)), not \(name); a slowpoke document plays one movie, so import a timeline whose clips all play \(name), or name that movie instead")
                }
            }
            // Two spellings of one file that is here (a link, `./`) are one file.
            var files = Set<String>(), identities = Set<String>()
            for path in Set(clips.compactMap { $0.targetURL.map { Self.path(of: $0, relativeTo: folder) } }) {
                let identity = FileIdentity(path: path).map { "\($0.device):\($0.inode)" } ?? path
                if identities.insert(identity).inserted { files.insert(path) }
            }
            if files.count > 1 {
                throw .unsupported("the timeline's clips play \(files.count) different files named \(name) (\(files.sorted().joined(separator: ", "))); a slowpoke document plays one movie, so import the clips of one of them")
            }
            let reels = Set(clips.filter { $0.media == .missing }.compactMap(\.reel))
            if reels.count > 1 {
                throw .unsupported("the timeline's unlinked clips come from \(reels.count) reels (\(reels.sorted().joined(separator: ", "))), and \(name) can stand for one of them; a slowpoke document plays one movie")
            }
            return movie
        }
        guard !clips.isEmpty else { throw .unbound("the timeline has no clips, so no movie") }
        if let unlinked = clips.first(where: { $0.media == .missing }) {
            throw .unbound("\(unlinked.label) has no linked media (a MissingReference, as EDL and AAF imports give)")
        }
        let urls = targetURLs
        guard urls.count == 1, let url = urls.first else {
            throw .unsupported("the timeline refers to \(urls.count) movies (\(urls.joined(separator: ", "))); a slowpoke document edits one")
        }
        if let parsed = URL(string: url), parsed.isFileURL { return parsed.standardizedFileURL }
        if url.hasPrefix("/") { return URL(fileURLWithPath: url) }
        if url.contains("://") { throw .unbound("the timeline refers to \(url), which is not a local file") }
        return folder.appendingPathComponent(url).standardizedFileURL
    }

    /// The file a `target_url` names, as a path: a `file://` URL's path, an absolute path, or a
    /// relative one against `folder`; other URLs as they are.
    static func path(of url: String, relativeTo folder: URL) -> String {
        if let parsed = URL(string: url), parsed.isFileURL { return parsed.standardizedFileURL.path }
        if url.hasPrefix("/") { return URL(fileURLWithPath: url).standardizedFileURL.path }
        if url.contains("://") { return url }
        return folder.appendingPathComponent(url).standardizedFileURL.path
    }

    /// The last path component of a `target_url`, percent-decoded for `file://` URLs.
    static func fileName(of url: String) -> String {
        if let parsed = URL(string: url), parsed.scheme != nil { return parsed.lastPathComponent }
        return (url as NSString).lastPathComponent
    }
}
