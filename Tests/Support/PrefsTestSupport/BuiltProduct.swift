import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
        let outputPipe = try Self.closeOnExecPipe()
        let errorPipe = try Self.closeOnExecPipe()
        let inputPipe = try Self.closeOnExecPipe()
        process.standardOutput = outputPipe.writing
        process.standardError = errorPipe.writing
        process.standardInput = inputPipe.reading
        try process.run()
        // The child has its own copies; the test's must close, or reading would never see the end of the output.
        try outputPipe.writing.close()
        try errorPipe.writing.close()
        try inputPipe.reading.close()
        if let input { inputPipe.writing.write(Data(input)) }
        try inputPipe.writing.close()
        // Read standard error on another thread so that neither pipe can fill up and block the process.
        nonisolated(unsafe) var errorData = Data()
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) {
            errorData = errorPipe.reading.readDataToEndOfFile()
        }
        let outputData = outputPipe.reading.readDataToEndOfFile()
        errorRead.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self), standardOutputBytes: Array(outputData))
    }

    /// A pipe whose two descriptors close on exec.
    ///
    /// Foundation's `Pipe` makes inheritable descriptors: a child that another test's thread spawns meanwhile (an
    /// etcd member, a prefsd) inherits the write end, and reading this run's output then waits for its end until that
    /// unrelated child exits (most likely why a `defaults fleet` run that fails at once took 97 s once under `make test`).
    /// `pipe2` is not in Swift's Glibc module, so the flag is set right after `pipe`: the window in which a spawn can
    /// still inherit them is a few instructions, not the whole run.
    private static func closeOnExecPipe() throws -> (reading: FileHandle, writing: FileHandle) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (
            FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true),
            FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true)
        )
    }
}
