// SPDX-License-Identifier: Apache-2.0
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzOpenStep {
    static func main() {
        exit(FuzzDriver.run(format: .openStep))
    }
}
