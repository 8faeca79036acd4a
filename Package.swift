// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "slowpoke",
    products: [
        .executable(name: "slowpoke", targets: ["slowpoke"]),
        .library(name: "Composition", targets: ["Composition"]),
        .library(name: "Project", targets: ["Project"]),
        .library(name: "Interchange", targets: ["Interchange"]),
        .library(name: "TimePitch", targets: ["TimePitch"]),
        .library(name: "Media", targets: ["Media"]),
        .library(name: "Export", targets: ["Export"]),
        .library(name: "Preview", targets: ["Preview"]),
        // `export --frames interpolate`'s optical flow (OpenCV), a shared library of its own that
        // Export opens on first use (see FlowLibrary), so that no other command loads OpenCV.
        .library(name: "FlowInterpolation", type: .dynamic, targets: ["FlowInterpolation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CFFmpeg",
            // Links libavutil, libswresample and libswscale. libavformat, libavcodec and
            // libavfilter are headers only: Export opens them when it needs them (see
            // AVLibraries and AVFilterLibrary), so that they and their hundreds of dependencies
            // do not load with every command.
            pkgConfig: "libavutil libswresample libswscale",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev",
                              "libswresample-dev", "libswscale-dev", "libavfilter-dev"])]
        ),
        .systemLibrary(
            name: "CRubberBand",
            // Headers only: TimePitch links Rubber Band statically (see below).
            providers: [.apt(["librubberband-dev"])]
        ),
        .systemLibrary(
            name: "CSDL2",
            // Headers only: Preview opens SDL2 and SDL2_ttf when a preview starts (see
            // SDLLibrary), so that they and their dependencies do not load with every command.
            providers: [.apt(["libsdl2-dev", "libsdl2-ttf-dev"])]
        ),
        // Pure Swift and no I/O: exact time, ranges, segments, tracks and edits.
        .target(name: "Composition"),
        // The signal handlers, in C so that they are async-signal-safe by construction: a fixed
        // array of temporary paths that an interrupt or a crash removes (see SignalSafety.h).
        .target(name: "SignalSafety"),
        // The one way slowpoke writes a file (OutputFile), file identity, and signal handling.
        .target(name: "SafeFiles", dependencies: ["SignalSafety"]),
        // The document and its store, the edit history, the movie's fingerprint (swift-crypto's
        // SHA-256) and slow-motion sidecars.
        .target(name: "Project", dependencies: ["Composition", "SafeFiles", .product(name: "Crypto", package: "swift-crypto")]),
        // Timelines other programs write and read: OpenTimelineIO (over its own JSON parser) and
        // CMX 3600 EDLs. Knows no document: the CLI replays what it reads into one.
        .target(name: "Interchange", dependencies: ["Composition", "SafeFiles"]),
        // The DSP runs optimised even in debug builds: the preview's real-time varispeed (a
        // windowed sinc per output sample) cannot keep up with playback unoptimised.
        // Rubber Band is linked from its static library (librubberband-dev ships both), the
        // build the rubberband CLI itself is made from: calls inside the engine are direct, not
        // through the shared library's PLT, which made the same work about 5% slower.
        .target(name: "TimePitch", dependencies: ["Composition", "CRubberBand", "CFFmpeg"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))],
                linkerSettings: [.linkedLibrary(":librubberband.a"), .linkedLibrary("stdc++")]),
        // C++ on OpenCV behind a C API (include/FlowInterpolation.h). Debian ships no opencv4.pc
        // with libopencv-video-dev (only with the much larger libopencv-dev), hence the explicit
        // header path and libraries. Optimised in debug builds too: its loops run per pixel.
        // SwiftPM links every product with the Swift runtime's image registration, so the library
        // also needs the toolchain's libswiftCore.so (found through its RUNPATH), even beside a
        // release binary that carries its own static copy; it calls none of it.
        .target(name: "FlowInterpolation",
                cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"]),
                              .unsafeFlags(["-O2"], .when(configuration: .debug))],
                linkerSettings: [.linkedLibrary("opencv_video"), .linkedLibrary("opencv_imgproc"),
                                 .linkedLibrary("opencv_core"), .linkedLibrary("stdc++")]),
        // Pure Swift, no libav and no I/O: H.264 and HEVC bitstreams (NAL units, parameter sets,
        // slice headers, SEI, avcC and hvcC), read and written for smart rendering and the scans.
        .target(name: "Bitstream"),
        // What reads movies, below Export (issue 53): `MediaError` (facts only: which file,
        // which operation, what libav said), `AVFailure`, the threads readers and writers share
        // (`Threads/`), `StandardOutput`, `SharedLibrary`, `LibAV/` (the libraries under Swift
        // names, owned packets, frames, codec contexts), `Container` with `OutputNaming`, and
        // `Reading/` (probing, scans, the one decode loop, the readers).
        .target(name: "Media", dependencies: ["Composition", "SafeFiles", "TimePitch", "Bitstream", "CFFmpeg"]),
        .target(name: "Export", dependencies: ["Composition", "SafeFiles", "TimePitch", "CFFmpeg",
                                               "Bitstream", "Media",
                                              ]),
        // Where documents meet exports: batch recipes, their plans, jobs and shards, run by
        // BatchRunner, and a document turned into the ExportSource every exporter takes. Export
        // itself never reads a document.
        .target(name: "Batch", dependencies: ["Composition", "Project", "SafeFiles", "TimePitch", "Media", "Export"]),
        .target(name: "Preview", dependencies: ["Composition", "Project", "TimePitch", "Media", "CSDL2"]),
        .executableTarget(
            name: "slowpoke",
            dependencies: [
                "Composition", "Project", "TimePitch", "Export", "Batch", "Preview", "SafeFiles",
                "Interchange", "Media",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "TestSupport", dependencies: ["Composition", "TimePitch"], path: "Tests/Support"),
        .testTarget(
            name: "CompositionTests",
            dependencies: [
                "Composition",
                "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "ProjectTests", dependencies: [
            "Project", "Composition", "TestSupport",
            "Interchange", "Batch",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "SafeFilesTests", dependencies: ["SafeFiles", "TestSupport"]),
        .testTarget(name: "TimePitchTests", dependencies: ["TimePitch", "Composition", "TestSupport"]),
        // Media without Export: the probe, the scans and the readers. Links libavformat,
        // libavcodec and libavfilter to check AVLibraries' and AVFilterLibrary's function types
        // against the headers.
        .testTarget(name: "MediaTests", dependencies: ["Media", "Composition", "TimePitch", "TestSupport", "CFFmpeg"],
                    linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("avfilter")]),
        // Links FlowInterpolation to check FlowLibrary's function types against its header.
        .testTarget(name: "ExportTests", dependencies: ["Export", "Composition", "Project", "SafeFiles", "TestSupport", "CFFmpeg", "FlowInterpolation",
                                                     "Bitstream", "Media",
                                                    ]),
        // Links SDL2 and SDL2_ttf to check SDLLibrary's function types against the headers.
        .testTarget(name: "PreviewTests", dependencies: ["Preview", "Media", "Composition", "Project", "TestSupport", "CSDL2"],
                    linkerSettings: [.linkedLibrary("SDL2"), .linkedLibrary("SDL2_ttf")]),
        .testTarget(name: "BitstreamTests", dependencies: ["Bitstream", "TestSupport"]),
        // Depends on the executable so that `swift test` builds the binary it runs.
        .testTarget(name: "SlowpokeTests", dependencies: ["slowpoke", "Composition", "Project", "SafeFiles", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
