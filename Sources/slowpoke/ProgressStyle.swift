import ArgumentParser
import Export
import Foundation
import SafeFiles

/// How progress is shown on stderr.
enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    /// A bar on a terminal, plain lines otherwise.
    case auto
    case bar
    /// One JSON object per line, for scripts.
    case json
    case none
}
