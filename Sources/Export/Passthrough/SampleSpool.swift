import Foundation

/// Re-encoded samples kept on disk until they are muxed, so that the memory a long re-encoded
/// range needs (a reversed minute of 1080p) does not grow with its length. The file is
/// anonymous (`tmpfile`: no name to collide with or follow, gone when closed or when the
/// process dies), read back in the order the output wants.
final class SampleSpool {
    private let file: UnsafeMutablePointer<FILE>
    /// Each span's samples: where each starts in the file and how long it is.
    private var places: [[(offset: Int64, count: Int)]] = []
    private var end: Int64 = 0

    init() throws {
        guard let file = tmpfile() else {
            throw ExportError.unsupported("no temporary file could be made for the re-encoded frames (\(String(cString: strerror(errno))))")
        }
        self.file = file
    }

    deinit { fclose(file) }

    /// Begins the next span's samples.
    func startSpan() { places.append([]) }

    /// Adds a sample to the current span.
    func append(_ bytes: [UInt8]) throws {
        guard !places.isEmpty else { preconditionFailure("SampleSpool.append before startSpan") }
        guard fseeko(file, off_t(end), SEEK_SET) == 0, fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw ExportError.unsupported("the re-encoded frames could not be written to a temporary file (\(String(cString: strerror(errno))))")
        }
        places[places.count - 1].append((end, bytes.count))
        end += Int64(bytes.count)
    }

    /// How many spans were started.
    var spans: Int { places.count }

    /// How many samples span `span` holds.
    func count(_ span: Int) -> Int { places[span].count }

    /// Sample `frame` of span `span`.
    func sample(span: Int, frame: Int) throws -> [UInt8] {
        let place = places[span][frame]
        var bytes = [UInt8](repeating: 0, count: place.count)
        guard fflush(file) == 0, fseeko(file, off_t(place.offset), SEEK_SET) == 0,
              fread(&bytes, 1, place.count, file) == place.count else {
            throw ExportError.unsupported("the re-encoded frames could not be read back from their temporary file (\(String(cString: strerror(errno))))")
        }
        return bytes
    }
}
