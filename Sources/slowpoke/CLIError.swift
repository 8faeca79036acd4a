import ArgumentParser
import Composition
import Project
import Export
import Foundation
import Preview
import SafeFiles
import TimePitch

/// Errors of the command line itself: which document to use, how flags combine.
struct CLIError: LocalizedError, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
    var errorDescription: String? { description }
}

/// A command line that parses but cannot be right for the movie it names (a crop larger than
/// the picture), found once the movie is opened and before any work: exit status 64, as for
/// any usage error, with the fact and the fix.
struct UsageError: LocalizedError, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
    var errorDescription: String? { description }
}
