import NIOCore

#if canImport(Glibc)
import Glibc
#endif

extension GatewayError {
    /// The server's failure to take its address, named with the address and what to do, or `nil`
    /// when `error` is something else. NIO's own text (`bind(descriptor:ptr:bytes:): Address already
    /// in use (errno: 98)`) names neither the address nor the setting.
    /// - Parameter listen: the configured `listen` (`HOST:PORT`).
    static func listening(_ listen: String, failedWith error: any Error) -> GatewayError? {
        guard let failure = error as? IOError else { return nil }
        let advice: String
        switch failure.errnoCode {
        case EADDRINUSE: advice = "another process listens there (another gateway?): stop it, or choose another port"
        case EADDRNOTAVAIL: advice = "that address is not one of this host's: choose one of its addresses"
        case EACCES: advice = "ports below 1024 need privileges: choose a port above 1023"
        default: return nil
        }
        return GatewayError(
            .cannotListen,
            "cannot listen on \(listen) (listen, --listen, WORKFEED_LISTEN): \(String(cString: strerror(failure.errnoCode))): \(advice)",
            cause: failure)
    }
}
