// SPDX-License-Identifier: Apache-2.0
import FuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzXML {
    static func main() {
        exit(FuzzDriver.run(format: .xml))
    }
}
