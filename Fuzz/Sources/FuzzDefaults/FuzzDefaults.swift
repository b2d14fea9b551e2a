// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PrefsFuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzDefaults {
    static func main() {
        exit(
            FuzzDriver.run(seeds: DefaultsWriteFuzzTarget.seeds) { data, size in
                DefaultsWriteFuzzTarget.run(FuzzDriver.input(data, size))
                return 0
            })
    }
}
