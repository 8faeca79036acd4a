import Foundation

/// The real OpenTimelineIO library (0.18.1, with the CMX 3600 EDL adapter), as the tests' oracle
/// for what other tools make of slowpoke's `.otio` files.
///
/// `make test-deps` (which `make test` runs) installs it in a virtual environment,
/// `.build/otio-venv`, and passes its python as `SLOWPOKE_OTIO_PYTHON`. Without that variable the
/// tests look in `.build/otio-venv/bin/python` under the package root. When neither exists they
/// fail, saying how to install it: a check that silently skipped would prove nothing.
public enum OTIOPython {
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String {
            "the OpenTimelineIO oracle \(path) does not exist; run `make test-deps` (it creates .build/otio-venv with opentimelineio==0.18.1 and otio-cmx3600-adapter from PyPI), or set SLOWPOKE_OTIO_PYTHON to a python that imports opentimelineio"
        }
    }

    public struct Failed: Error, CustomStringConvertible {
        public let stderr: String
        public var description: String { "the OpenTimelineIO script failed:\n\(stderr)" }
    }

    public static var executable: URL {
        if let explicit = ProcessInfo.processInfo.environment["SLOWPOKE_OTIO_PYTHON"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        return TestSupport.root.appendingPathComponent(".build/otio-venv/bin/python")
    }

    /// Runs a Python script with `import opentimelineio as otio` before it, and returns its
    /// standard output. `arguments` are in `sys.argv[1:]`.
    @discardableResult
    public static func run(_ script: String, _ arguments: [String] = [], in folder: URL? = nil) throws -> String {
        let python = executable
        guard FileManager.default.isExecutableFile(atPath: python.path) else { throw Missing(path: python.path) }
        let program = "import sys, json\nimport opentimelineio as otio\n" + script
        let result = try TestSupport.run(python, ["-c", program] + arguments, in: folder)
        guard result.status == 0 else { throw Failed(stderr: result.stderr) }
        return result.stdout
    }

    /// A script that prints, for every .otio file named in `sys.argv[1:]`, what OTIO computes:
    /// the timeline's duration and each track's items with `range_in_parent()`, their
    /// `source_range` and their time warps' scalars, all times in seconds. JSON, one list.
    public static let layoutScript = """
        out = []
        for path in sys.argv[1:]:
            tl = otio.adapters.read_from_file(path)
            tracks = []
            for track in tl.tracks:
                items = []
                for item in track:
                    placed = item.range_in_parent()
                    items.append({
                        "kind": type(item).__name__,
                        "start": placed.start_time.to_seconds(),
                        "duration": placed.duration.to_seconds(),
                        "source_start": item.source_range.start_time.to_seconds(),
                        "scalars": [e.time_scalar for e in item.effects if isinstance(e, otio.schema.LinearTimeWarp)],
                    })
                tracks.append({"kind": track.kind, "duration": track.duration().to_seconds(), "items": items})
            out.append({"duration": tl.duration().to_seconds(), "tracks": tracks})
        print(json.dumps(out))
        """
}
