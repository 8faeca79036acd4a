import Composition
import Project
import Foundation
import Testing
import TestSupport

/// A temporary folder with a fake "movie" (any bytes fingerprint the same way) and media facts
/// describing a 10 s movie with video and audio.
final class Scratch {
    let folder: URL
    let movie: URL
    let document: URL

    /// `size` bytes of movie: large enough by default that the first and last MiB differ.
    init(size: Int = 3_000_000) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("slowpoke-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        movie = folder.appendingPathComponent("clip.mp4")
        document = folder.appendingPathComponent("clip.slowpoke")
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: movie)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static var media: MediaInfo {
        var video = StreamInfo(index: 0, kind: .video, codec: "h264", timeBase: r("1/15360"))
        video.presentationDuration = .seconds(10)
        var audio = StreamInfo(index: 1, kind: .audio, codec: "aac", timeBase: r("1/48000"))
        audio.presentationDuration = .seconds(10)
        return MediaInfo(container: "mov,mp4", containerLongName: nil, duration: .seconds(10), bitRate: nil,
                         fileSize: 3_000_000, streams: [video, audio])
    }

    func create() throws -> ProjectDocument {
        let doc = try ProjectDocument(movieURL: movie, documentURL: document, media: Scratch.media)
        try DocumentStore.create(doc, at: document)
        return doc
    }

    func bytes() throws -> Data { try Data(contentsOf: document) }

    /// Files other than the movie and the document, such as stray temporary files.
    func strays() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "clip.mp4" && $0 != "clip.slowpoke" }
    }
}

@Suite struct DocumentTests {
    @Test func createsAndRoundTrips() throws {
        let scratch = try Scratch()
        let created = try scratch.create()
        let read = try DocumentStore.read(scratch.document)
        #expect(read == created)
        #expect(read.movie.path == "clip.mp4")
        #expect(read.timeline.duration == .seconds(10))
        // Independent check of the JSON layout.
        let json = try #require(try JSONSerialization.jsonObject(with: scratch.bytes()) as? [String: Any])
        #expect(json["format"] as? String == "slowpoke")
        #expect(json["version"] as? Int == 4)
        let movie = try #require(json["movie"] as? [String: Any])
        let fingerprint = try #require(movie["fingerprint"] as? [String: Any])
        #expect(fingerprint["size"] as? Int == 3_000_000)
        #expect((fingerprint["sha256HeadTail"] as? String)?.count == 64)
        #expect(try scratch.strays() == [])
        #expect(throws: ProjectError.documentExists(scratch.document.path)) { try scratch.create() }
    }

    @Test func fingerprintIsSHA256OfTheFirstAndLastMiB() throws {
        let scratch = try Scratch()
        let data = try Data(contentsOf: scratch.movie)
        let mib = 1 << 20
        let sample = data.prefix(mib) + data.suffix(mib)
        let sampleFile = scratch.folder.appendingPathComponent("sample.bin")
        try sample.write(to: sampleFile)
        // sha256sum is the independent oracle.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [sampleFile.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let expected = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
        #expect(try Fingerprint(of: scratch.movie).sha256HeadTail == String(expected))
    }

    /// A movie opened through a symbolic link is fingerprinted by what the link points to, so
    /// the next command does not find it "changed" (issue 20, defect 10).
    @Test func aSymbolicLinkIsFingerprintedByItsTarget() throws {
        let scratch = try Scratch()
        let link = scratch.folder.appendingPathComponent("link.mp4")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: scratch.movie)
        let size = try #require((try FileManager.default.attributesOfItem(atPath: scratch.movie.path)[.size] as? NSNumber)?.int64Value)
        let throughLink = try Fingerprint(of: link)
        #expect(throughLink.size == size)
        #expect(throughLink.change(to: try Fingerprint(of: scratch.movie)) == nil)
        // And through the CLI, with a real movie behind the link.
        let folder = try TemporaryFolder("symlink")
        let movie = try folder.copy(media: "clip60.mp4")
        let clipLink = folder.file("link.mp4")
        try FileManager.default.createSymbolicLink(at: clipLink, withDestinationURL: movie)
        let opened = try TestSupport.run(TestSupport.slowpoke, ["open", clipLink.path])
        try #require(opened.status == 0, "\(opened.stderr)")
        let scaled = try TestSupport.run(TestSupport.slowpoke, ["scale", folder.file("link.slowpoke").path,
                                                                "--range", "1-2", "--rate", "0.5"])
        #expect(scaled.status == 0, "\(scaled.stderr)")
    }

    @Test func editsUndoAndRedo() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        let slow = try Edit.scale(range: range("3.2", "5"), rate: r("1/4"))
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in try d.apply(slow) }
        try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
            try d.apply(.remove(range: range("0", "1")))
        }
        var doc = try DocumentStore.read(scratch.document)
        #expect(doc.timeline.duration == s("14.4"))
        #expect(try doc.undo() == .remove(range: range("0", "1")))
        #expect(doc.timeline.duration == s("15.4"))
        #expect(try doc.undo() == slow)
        #expect(doc.timeline == (try doc.originalTimeline()))
        #expect(throws: ProjectError.nothingToUndo) { try doc.undo() }
        #expect(try doc.redo() == slow)
        #expect(doc.timeline.duration == s("15.4"))
        // A new edit drops what was undone.
        try doc.apply(.insertGap(range: range("0", "1")))
        #expect(doc.history.count == 2)
        #expect(throws: ProjectError.nothingToRedo) { try doc.redo() }
    }

    @Test(arguments: ["0", "-1", "64", "1/64", "33"])
    func badRatesAreRefused(rate: String) throws {
        #expect(throws: CompositionError.self) { try Edit.scale(range: range("1", "2"), rate: r(rate)) }
    }

    @Test func rateMessagesSayWhatIsAllowed() {
        #expect(throws: CompositionError.rateOutOfRange("rate 64 is outside the supported 0.03125 to 32")) {
            try PlaybackRate.validate(r("64"))
        }
        #expect(throws: CompositionError.rateOutOfRange("rate 0 would stop time; use a rate from 0.03125 (slowest) to 32 (fastest)")) {
            try PlaybackRate.validate(.zero)
        }
    }

    @Test func scalingPastTheLimitByMultiplicationIsRefused() throws {
        let scratch = try Scratch()
        var doc = try scratch.create()
        try doc.apply(Edit.scale(range: range("1", "2"), rate: r("1/32")))
        #expect {
            try doc.apply(Edit.scale(range: range("1", "33"), rate: r("1/2")))
        } throws: { error in
            guard case .edit(let refused)? = error as? ProjectError else { return false }
            return refused.description.contains("at 0.015625x, outside the supported 0.03125x to 32x")
        }
        #expect(doc.history.applied == 1)
    }

    @Test func aCorruptDocumentIsRefusedAndUntouched() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        var text = String(decoding: try scratch.bytes(), as: UTF8.self)
        text.removeLast(40)
        try Data(text.utf8).write(to: scratch.document)
        let before = try scratch.bytes()
        #expect(throws: ProjectError.corruptDocument(path: "clip.slowpoke", reason: "it is not JSON")) {
            try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
                try d.apply(.remove(range: range("0", "1")))
            }
        }
        #expect(try scratch.bytes() == before)
        #expect(try scratch.strays() == [])
    }

    @Test func aTamperedTimelineIsRefused() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        let text = String(decoding: try scratch.bytes(), as: UTF8.self)
        // Change the stored timeline so it no longer follows from the (empty) history.
        let tampered = text.replacingOccurrences(of: "\"duration\" : \"10\"", with: "\"duration\" : \"11\"")
        #expect(tampered != text)
        try Data(tampered.utf8).write(to: scratch.document)
        #expect {
            try DocumentStore.read(scratch.document)
        } throws: { error in
            guard case .corruptDocument(_, let reason)? = error as? ProjectError else { return false }
            return reason.contains("does not match") || reason.contains("disagrees") || reason.contains("start")
        }
    }

    @Test func aNewerDocumentIsRefusedAndUntouched() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        let text = String(decoding: try scratch.bytes(), as: UTF8.self).replacingOccurrences(of: "\"version\" : 4", with: "\"version\" : 7")
        try Data(text.utf8).write(to: scratch.document)
        #expect(throws: ProjectError.newerDocument(path: "clip.slowpoke", version: 7, supported: ProjectDocument.currentVersion)) {
            try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
                try d.apply(.remove(range: range("0", "1")))
            }
        }
        #expect(try scratch.bytes() == Data(text.utf8))
        #expect(ProjectError.newerDocument(path: "clip.slowpoke", version: 7, supported: ProjectDocument.currentVersion).description
            == "clip.slowpoke was written by a newer slowpoke (document version 7; this slowpoke reads up to 6); upgrade slowpoke to edit it")
    }

    @Test func aMissingMovieIsReported() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        let before = try scratch.bytes()
        try FileManager.default.removeItem(at: scratch.movie)
        #expect(throws: ProjectError.movieMissing(document: "clip.slowpoke", movie: "clip.mp4")) {
            try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
                try d.apply(.remove(range: range("0", "1")))
            }
        }
        #expect(try scratch.bytes() == before)
    }

    @Test func aChangedMovieIsReportedButATouchIsNot() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        // A new modification time alone is not a change.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: scratch.movie.path)
        _ = try DocumentStore.read(scratch.document)
        // A changed byte near the end is.
        let handle = try FileHandle(forWritingTo: scratch.movie)
        try handle.seek(toOffset: 2_999_000)
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        let before = try scratch.bytes()
        #expect(throws: ProjectError.movieChanged(document: "clip.slowpoke", movie: "clip.mp4", detail: "its content is different")) {
            try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
                try d.apply(.remove(range: range("0", "1")))
            }
        }
        #expect(try scratch.bytes() == before)
    }

    @Test func aFailedEditWritesNothing() throws {
        let scratch = try Scratch()
        _ = try scratch.create()
        let before = try scratch.bytes()
        #expect(throws: ProjectError.self) {
            try DocumentStore.modify(scratch.document) { (d: inout ProjectDocument) throws(ProjectError) in
                try d.apply(.remove(range: range("5", "20")))
            }
        }
        #expect(try scratch.bytes() == before)
        #expect(try scratch.strays() == [])
    }

    @Test func concurrentEditorsDoNotLoseEdits() async throws {
        let scratch = try Scratch(size: 100_000)
        _ = try scratch.create()
        let document = scratch.document
        // Eight writers at once, each inserting a 1 s gap; the lock must serialise them.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try DocumentStore.modify(document) { (d: inout ProjectDocument) throws(ProjectError) in
                        try d.apply(.insertGap(range: range("0", "1")))
                    }
                }
            }
            try await group.waitForAll()
        }
        let doc = try DocumentStore.read(document)
        #expect(doc.history.applied == 8)
        #expect(doc.timeline.duration == .seconds(18))
        #expect(try scratch.strays() == [])
    }
}
