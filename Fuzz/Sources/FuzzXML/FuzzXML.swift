#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport

@main
enum FuzzXML {
    static func main() {
        exit(FuzzDriver.run(format: .xml))
    }
}
