// SPDX-License-Identifier: Apache-2.0
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzBinary {
    static func main() {
        exit(FuzzDriver.run(format: .binary))
    }
}
