// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PrefsFuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzKeyPath {
    static func main() {
        exit(
            FuzzDriver.run(seeds: KeyPathFuzzTarget.seeds) { data, size in
                KeyPathFuzzTarget.run(FuzzDriver.input(data, size))
                return 0
            })
    }
}
