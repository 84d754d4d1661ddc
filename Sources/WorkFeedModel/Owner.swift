/// Who a workout belongs to: an opaque user id from the app's own account system (a JWT's `sub`,
/// or what an operator gives `workctl import --owner`). Feeds, changes, deletion and counts are
/// per owner, and the owner is part of a workout's identity (``WorkoutIdentity``).
///
/// An owner id is 1 to 256 bytes of UTF-8 with no control characters and no space at either end;
/// anything else is refused where it enters (the control protocol, workctl, the gateway) with
/// ``problem(with:)``'s message.
public enum Owner {
    /// The owner of workouts imported without one, and of the workouts an index held before
    /// owners existed, unless configuration (`owners.default`) names another.
    public static let defaultName = "default"

    /// The longest owner id, in UTF-8 bytes.
    public static let maximumLength = 256

    /// What is wrong with `text` as an owner id, or `nil` when it is one.
    public static func problem(with text: String) -> String? {
        let count = text.utf8.count
        guard count > 0 else { return "an owner id cannot be empty" }
        guard count <= maximumLength else { return "an owner id has at most \(maximumLength) bytes, this one \(count)" }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) }) {
            return "an owner id cannot hold control characters"
        }
        if text.first?.isWhitespace == true || text.last?.isWhitespace == true {
            return "an owner id cannot start or end with a space"
        }
        return nil
    }

    /// Whether `text` is a valid owner id.
    public static func isValid(_ text: String) -> Bool { problem(with: text) == nil }
}
