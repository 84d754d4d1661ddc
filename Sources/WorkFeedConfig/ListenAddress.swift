import Foundation
import WorkFeedModel

#if canImport(Glibc)
import Glibc
#endif

/// A listen address, parsed rather than prefix-matched: what the coordinator is about to bind, and
/// whether only this host can reach it.
///
/// A ZeroMQ endpoint is `tcp://HOST:PORT` (HOST an IPv4 address, `[IPv6]`, `*` or a name that
/// libzmq resolves as an interface or a host; PORT a number or `*`), `ipc://PATH` or
/// `inproc://NAME`. Anything else, including two endpoints in one (`tcp://127.0.0.1:0;0.0.0.0:5555`,
/// which libzmq reads as a source address and a bind address), is not a listen address.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Host: Sendable, Hashable {
        /// An IPv4 address, its four bytes.
        case ipv4([UInt8])
        /// An IPv6 address, its sixteen bytes.
        case ipv6([UInt8])
        /// `*`: every interface.
        case any
        /// A name (an interface such as `eth0`, or a host name): what it binds is decided elsewhere.
        case name(String)
    }

    public enum Transport: Sendable, Hashable {
        case tcp(host: Host, port: Int?)
        /// A Unix-domain socket: reachable from this host only (its file's permissions decide who).
        case ipc(path: String)
        /// Inside one process.
        case inproc(name: String)
    }

    public let text: String
    public let transport: Transport

    public var description: String { text }

    /// Whether only processes on this host can reach the address: TCP on 127.0.0.0/8 or `::1`
    /// (or `::ffff:127.x`), an `ipc://` socket or an `inproc://` name. A name is never counted as
    /// loopback, not even `localhost`: what a name resolves to is not known here.
    public var isLoopback: Bool {
        switch transport {
        case .ipc, .inproc: true
        case .tcp(let host, _): host.isLoopback
        }
    }

    /// Parses a ZeroMQ listen endpoint.
    /// - Throws: ``ListenAddressError`` saying what is wrong with it.
    public init(zeroMQ text: String) throws(ListenAddressError) {
        self.text = text
        if let path = text.dropPrefix("ipc://") {
            guard !path.isEmpty, !path.contains(";") else { throw ListenAddressError(text, "an ipc:// endpoint needs one path") }
            transport = .ipc(path: String(path))
            return
        }
        if let name = text.dropPrefix("inproc://") {
            guard !name.isEmpty else { throw ListenAddressError(text, "an inproc:// endpoint needs a name") }
            transport = .inproc(name: String(name))
            return
        }
        guard let rest = text.dropPrefix("tcp://") else {
            throw ListenAddressError(text, "not a ZeroMQ endpoint: use tcp://HOST:PORT, ipc://PATH or inproc://NAME")
        }
        let (host, port) = try Self.hostAndPort(String(rest), whole: text, wildcardPort: true)
        transport = .tcp(host: host, port: port)
    }

    /// Parses an HTTP listen address, `HOST:PORT` with an IPv4 HOST (the metrics endpoint).
    /// - Throws: ``ListenAddressError`` saying what is wrong with it.
    public init(http text: String) throws(ListenAddressError) {
        self.text = text
        let (host, port) = try Self.hostAndPort(text, whole: text, wildcardPort: false)
        guard case .ipv4 = host else { throw ListenAddressError(text, "the metrics endpoint listens on an IPv4 address, e.g. 127.0.0.1:9464") }
        transport = .tcp(host: host, port: port)
    }

    private static func hostAndPort(_ text: String, whole: String, wildcardPort: Bool) throws(ListenAddressError) -> (Host, Int?) {
        for forbidden in [";", ",", " ", "\t", "\n", "/", "@"] where text.contains(forbidden) {
            throw ListenAddressError(
                whole,
                "a listen address is one HOST:PORT; '\(forbidden.escapedForDisplay)' would make it something else (libzmq reads 'A;B' as a source and a bind address)"
            )
        }
        guard let colon = text.lastIndex(of: ":") else { throw ListenAddressError(whole, "needs HOST:PORT") }
        let hostText = String(text[..<colon])
        let portText = String(text[text.index(after: colon)...])
        let port: Int?
        if portText == "*" && wildcardPort {
            port = nil
        } else {
            guard !portText.isEmpty, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), portText.utf8.count <= 5, let number = Int(portText),
                number <= 65_535
            else { throw ListenAddressError(whole, "the port must be a number from 0 to 65535\(wildcardPort ? " or *" : "")") }
            port = number
        }
        if hostText == "*" { return (.any, port) }
        if hostText.hasPrefix("[") && hostText.hasSuffix("]") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(hostText.dropFirst().dropLast()), &address) == 1 else {
                throw ListenAddressError(whole, "'\(hostText)' is not an IPv6 address")
            }
            return (.ipv6(withUnsafeBytes(of: address) { Array($0) }), port)
        }
        var address = in_addr()
        if inet_pton(AF_INET, hostText, &address) == 1 {
            return (.ipv4(withUnsafeBytes(of: address) { Array($0) }), port)
        }
        guard !hostText.isEmpty,
            hostText.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x2E || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { throw ListenAddressError(whole, "'\(hostText.escapedForDisplay)' is neither an IP address nor a name") }
        return (.name(hostText), port)
    }
}

extension ListenAddress.Host {
    var isLoopback: Bool {
        switch self {
        case .ipv4(let bytes): bytes.first == 127
        case .ipv6(let bytes):
            // ::1, or ::ffff:127.x.y.z (an IPv4-mapped loopback address).
            bytes == [UInt8](repeating: 0, count: 15) + [1]
                || (bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127)
        case .any, .name: false
        }
    }
}

/// A listen address that is malformed or not allowed: says which and why.
public struct ListenAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    public var address: String
    public var reason: String

    public init(_ address: String, _ reason: String) {
        self.address = address
        self.reason = reason
    }

    public var description: String { "'\(address.escapedForDisplay)': \(reason)" }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> Substring? {
        hasPrefix(prefix) ? dropFirst(prefix.count) : nil
    }
}
