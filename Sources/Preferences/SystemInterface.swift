// SPDX-License-Identifier: Apache-2.0
import Glibc
import PrefsPOSIX

/// The C calls of the module: the executable's path, CoreFoundation's number type; the environment, the home
/// directory and standard error are `PrefsPOSIX`'s.
enum SystemInterface {
    /// The path of the running executable (`/proc/self/exe`), or `nil` when it cannot be read.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An environment variable, or `nil` when unset or empty.
    static func environmentVariable(_ name: String) -> String? {
        guard let value = POSIX.environmentVariable(name), !value.isEmpty else { return nil }
        return value
    }

    /// The user's home directory: `HOME`, else the password database's entry.
    static func homeDirectory() -> String? {
        environmentVariable("HOME") ?? POSIX.homeDirectoryOfCurrentUser()
    }

    /// Writes text to standard error in full, ignoring failures.
    static func writeToStandardError(_ text: String) {
        POSIX.writeToStandardError(text)
    }

    /// What a Foundation `NSNumber` holds, as CoreFoundation records it.
    enum NumberKind {
        /// A `CFBoolean` (`NSNumber(value: true)`, `true as NSNumber`).
        case boolean
        /// An integer of any width.
        case integer
        /// A 32-bit float (`kCFNumberFloat32Type`, `kCFNumberFloatType`).
        case float32
        /// A 64-bit real, `NSDecimalNumber` included.
        case float64
    }

    /// What the `NSNumber` `object` holds; `nil` when CoreFoundation is not in the process (so no `NSNumber`
    /// exists) or `object` is not one of its numbers.
    ///
    /// The module does not import Foundation; when a program hands it an `NSNumber`, Foundation is loaded and
    /// its CoreFoundation functions are looked up by name. Only call this for a class instance that Swift's casts
    /// bridge to a number, which only an `NSNumber` does: CoreFoundation's functions take it for granted.
    static func numberKind(of object: AnyObject) -> NumberKind? {
        guard let functions = CoreFoundationNumbers.shared else { return nil }
        return withExtendedLifetime(object) {
            let number = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            let typeID = functions.getTypeID(number)
            if typeID == functions.booleanTypeID { return .boolean }
            guard typeID == functions.numberTypeID else { return nil }
            switch functions.getType(number) {
            case 5, 12: return .float32  // kCFNumberFloat32Type, kCFNumberFloatType
            case 6, 13, 16: return .float64  // kCFNumberFloat64Type, kCFNumberDoubleType, kCFNumberCGFloatType
            default: return .integer
            }
        }
    }

    /// CoreFoundation's functions for telling numbers apart, found in the running process.
    private struct CoreFoundationNumbers: @unchecked Sendable {
        typealias TypeIDFunction = @convention(c) (UnsafeRawPointer) -> UInt
        typealias TypeIDOfTypeFunction = @convention(c) () -> UInt
        typealias NumberTypeFunction = @convention(c) (UnsafeRawPointer) -> Int

        let getTypeID: TypeIDFunction
        let booleanTypeID: UInt
        let numberTypeID: UInt
        let getType: NumberTypeFunction

        /// Looked up on first use, which is when a program has handed over an `NSNumber`: Foundation is loaded.
        static let shared: CoreFoundationNumbers? = {
            guard let process = dlopen(nil, RTLD_NOW),
                let getTypeID = dlsym(process, "CFGetTypeID"),
                let booleanTypeID = dlsym(process, "CFBooleanGetTypeID"),
                let numberTypeID = dlsym(process, "CFNumberGetTypeID"),
                let getType = dlsym(process, "CFNumberGetType")
            else { return nil }
            return CoreFoundationNumbers(
                getTypeID: unsafeBitCast(getTypeID, to: TypeIDFunction.self),
                booleanTypeID: unsafeBitCast(booleanTypeID, to: TypeIDOfTypeFunction.self)(),
                numberTypeID: unsafeBitCast(numberTypeID, to: TypeIDOfTypeFunction.self)(),
                getType: unsafeBitCast(getType, to: NumberTypeFunction.self))
        }()
    }
}
