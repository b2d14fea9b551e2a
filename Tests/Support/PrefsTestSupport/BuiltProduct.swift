// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs an executable built by this package (`plutil`, `defaults`, `prefsd`, fixtures) and captures its output.
public struct BuiltProduct: Sendable {
    /// What a finished run printed and returned.
    public struct Result: Sendable, CustomStringConvertible {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
        public let standardOutputBytes: [UInt8]

        public var description: String {
            "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
        }
    }

    /// The executable's path.
    public let path: String

    /// The product named `name` in the build directory that holds the running test binary.
    public init(_ name: String) {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On Linux the test runner is `<bin>/<package>PackageTests.xctest`, a file beside the products.
        if directory.lastPathComponent.hasSuffix(".xctest") { directory = directory.deletingLastPathComponent() }
        path = directory.appendingPathComponent(name).path
    }

    /// Any executable, by its path (a system program the tests compare with).
    public init(path: String) {
        self.path = path
    }

    /// Runs the product and waits for it.
    /// - Parameters:
    ///   - arguments: The command-line arguments.
    ///   - input: Bytes for standard input (empty input when `nil`).
    ///   - environment: Variables added to (or replacing those of) the test's environment.
    ///   - directory: The working directory.
    @discardableResult
    public func run(
        _ arguments: [String], input: [UInt8]? = nil, environment: [String: String] = [:], in directory: String? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let outputPipe = Pipe.closingOnExec()
        let errorPipe = Pipe.closingOnExec()
        let inputPipe = Pipe.closingOnExec()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(Data(input)) }
        try inputPipe.fileHandleForWriting.close()
        // Read standard error on another thread so that neither pipe can fill up and block the process.
        nonisolated(unsafe) var errorData = Data()
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) {
            errorData = errorPipe.fileHandleForReading.readDataToEndOfFile()
        }
        let outputData = outputPipe.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self), standardOutputBytes: Array(outputData))
    }
}
