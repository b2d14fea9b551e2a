#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport

@main
enum FuzzOpenStep {
    static func main() {
        exit(FuzzDriver.run(format: .openStep))
    }
}
