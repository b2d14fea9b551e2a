// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Starts a program that runs beside a benchmark (a daemon, a peer server), its standard output discarded.
/// - Parameters:
///   - path: The executable.
///   - arguments: Its arguments.
///   - environment: Its whole environment.
///   - output: A file for its standard error, or `nil` to discard it.
/// - Returns: The running process.
/// - Throws: Foundation's error when the program cannot start.
public func startBenchmarkProcess(
    _ path: String, _ arguments: [String], environment: [String: String], output: String? = nil
) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError =
        output.flatMap {
            FileManager.default.createFile(atPath: $0, contents: nil) ? FileHandle(forWritingAtPath: $0) : nil
        } ?? FileHandle.nullDevice
    try process.run()
    return process
}
