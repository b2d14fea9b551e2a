// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
import PrefsFuzzTargets

#if canImport(Glibc)
    import Glibc
#endif

@main
enum FuzzWire {
    static func main() {
        exit(
            FuzzDriver.run(seeds: WireStreamFuzzTarget.seeds) { data, size in
                WireStreamFuzzTarget.run(FuzzDriver.input(data, size))
                return 0
            })
    }
}
