import Foundation
import Testing

/// `slowpoke preview` checked by what it shows, saves and how it ends, not by how fast anything
/// happens: the picture's shape, the status and strip read back from the screen, clicks on the
/// strip, tone-mapped HDR, the stabilized pictures, exit statuses and the document after an
/// interruption. Each session runs on an Xvfb display of its own (``VirtualDisplay``) and every
/// wait is a poll for what it waits for, so these tests run side by side with the rest of the
/// suite: `make test` runs them in its first, parallel `swift test` (with
/// SLOWPOKE_PREVIEW_TESTS=1 and `--skip PreviewCommandTests`). The tests that measure real time
/// (tempo, latency, A/V sync, the wall clock, the strip's cost) stay in PreviewCommandTests,
/// serialized, run on their own afterwards.
///
/// Gated like PreviewCommandTests: they need Xvfb, xdotool and xwd, so a plain `swift test`
/// skips them.
@Suite(.enabled(if: PreviewTestGate.enabled))
struct PreviewScreenTests {}
