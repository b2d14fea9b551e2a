#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport

@main
enum FuzzBinary {
    static func main() {
        exit(FuzzDriver.run(format: .binary))
    }
}
