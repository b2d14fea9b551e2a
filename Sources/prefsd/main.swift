import PrefsDaemon

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

exit(await Prefsd.main(arguments: Array(CommandLine.arguments.dropFirst())))
