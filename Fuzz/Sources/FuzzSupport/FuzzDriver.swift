// SPDX-License-Identifier: Apache-2.0
import PrefsPlist

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer's entry point for programs that own `main`. SwiftPM renames an executable's `main`, so a harness
/// cannot rely on libFuzzer's; it calls this driver itself.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Runs libFuzzer: against one reader (each input is decoded as `format`; whatever decodes is written back in
/// every format and, where the format holds it exactly, read again and compared), or with a check of
/// `PrefsFuzzTargets`.
public enum FuzzDriver {
    /// Starts libFuzzer with the process's arguments and returns its exit code.
    public static func run(format: PlistFormat) -> Int32 {
        nonisolated(unsafe) var argc = CommandLine.argc
        nonisolated(unsafe) var argv = CommandLine.unsafeArgv
        let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
        switch format {
        case .xml: callback = { data, size in FuzzDriver.fuzzOne(data, size, .xml) }
        case .binary: callback = { data, size in FuzzDriver.fuzzOne(data, size, .binary) }
        case .openStep: callback = { data, size in FuzzDriver.fuzzOne(data, size, .openStep) }
        case .json: callback = { data, size in FuzzDriver.fuzzOne(data, size, .json) }
        }
        return LLVMFuzzerRunDriver(&argc, &argv, callback)
    }

    /// Starts libFuzzer with a check of one input and returns its exit code; with the arguments
    /// `--write-seeds <directory>`, writes `seeds` there as files `seed-1`, `seed-2`, … instead.
    /// - Parameters:
    ///   - seeds: The inputs to start from.
    ///   - callback: The check, called with each input (wrap it with ``input(_:_:)``); it returns 0.
    public static func run(
        seeds: [[UInt8]], _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--write-seeds" {
            return writeSeeds(seeds, to: arguments[2])
        }
        nonisolated(unsafe) var argc = CommandLine.argc
        nonisolated(unsafe) var argv = CommandLine.unsafeArgv
        return LLVMFuzzerRunDriver(&argc, &argv, callback)
    }

    /// The bytes libFuzzer passes to a callback.
    public static func input(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    private static func writeSeeds(_ seeds: [[UInt8]], to directory: String) -> Int32 {
        for (index, seed) in seeds.enumerated() {
            let path = "\(directory)/seed-\(index + 1)"
            guard let file = fopen(path, "wb") else {
                print("cannot create \(path)")
                return 1
            }
            let written = seed.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            guard fclose(file) == 0, written == seed.count else {
                print("cannot write \(path)")
                return 1
            }
        }
        return 0
    }

    static func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int, _ format: PlistFormat) -> Int32 {
        let input = input(data, size)
        let limits = PlistLimits(maxInputBytes: 1 << 20, maxDepth: 128, maxObjectCount: 100_000)
        guard let value = try? PlistSerialization.decode(input, format: format, limits: limits).value else { return 0 }
        // A decoded value must survive the lossless formats unchanged.
        for target in [PlistFormat.binary, .xml] {
            guard let encoded = try? PlistSerialization.encode(value, format: target) else { continue }
            guard let again = try? PlistSerialization.decode(encoded, format: target).value else {
                fatalError("\(target) output of a decoded value does not read back")
            }
            // XML keeps whole seconds for dates and cannot hold every value; binary holds everything.
            if target == .binary, again != value { fatalError("binary round trip changed the value") }
        }
        _ = try? PlistSerialization.encode(value, format: .openStep)
        _ = try? PlistSerialization.encode(value, format: .json)
        _ = value.defaultsDescription
        return 0
    }
}
