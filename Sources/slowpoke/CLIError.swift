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
