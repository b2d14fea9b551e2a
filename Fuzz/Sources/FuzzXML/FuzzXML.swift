// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PrefsFuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzXML {
    static func main() {
        // Seeded by Fuzz/run.sh from the corpus's XML files.
        exit(
            FuzzDriver.run(seeds: []) { data, size in
                XMLReaderFuzzTarget.run(FuzzDriver.input(data, size))
                return 0
            })
    }
}
