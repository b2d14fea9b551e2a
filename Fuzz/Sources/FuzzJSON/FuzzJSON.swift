#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport

@main
enum FuzzJSON {
    static func main() {
        exit(FuzzDriver.run(format: .json))
    }
}
