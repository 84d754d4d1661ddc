import Crypto

/// HMAC-SHA-256 (RFC 2104): what signs and checks HS256 tokens, and the privacy zones' stable
/// jitter (``PrivacyPolicy``).
///
/// A thin wrapper around swift-crypto's `HMAC<SHA256>`, which replaced a hand-written HMAC over
/// ``SHA256``. The codes are the same bytes (HMAC-SHA-256 is one function): RFC 4231's vectors,
/// and a token signed by the hand-written code before the change, still check (TokenTests), so no
/// token already handed out and no privacy cut changed.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        Array(HMAC<Crypto.SHA256>.authenticationCode(for: Array(message), using: SymmetricKey(data: key)))
    }

    /// Whether `code` is the authentication code of `message` under `key`, compared in time that
    /// depends on the length only (swift-crypto's comparison), so that a forger learns nothing from
    /// how long a refusal took.
    public static func isValid(_ code: [UInt8], for message: some Sequence<UInt8>, key: [UInt8]) -> Bool {
        HMAC<Crypto.SHA256>.isValidAuthenticationCode(code, authenticating: Array(message), using: SymmetricKey(data: key))
    }
}
