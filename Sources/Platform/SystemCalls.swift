// The C library of the platform. Every other file of this module imports it through here.
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Musl)
    @_exported import Musl
#elseif canImport(Darwin)
    @_exported import Darwin
#else
    #error("mandel needs a POSIX C library")
#endif
