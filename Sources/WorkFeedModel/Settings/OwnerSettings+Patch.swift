public import Foundation

/// A change to some of an owner's settings (`PATCH /v1/settings`, a JSON merge patch, RFC 7396):
/// the members it names with a value are set, those it names with `null` are unset, and every
/// member it leaves out is kept as stored.
///
/// ```json
/// {"units": "imperial", "timeZone": null}
/// ```
///
/// `heartRateZones` is one value (either form, never both), so a patch replaces it whole rather
/// than merging into it: `{"heartRateZones": {"bounds": [120, 140, 160]}}` over a stored maximum
/// heart rate gives bounds, not an object with both.
public struct OwnerSettingsPatch: Sendable, Hashable {
    /// The members to set (absent: not set by this patch).
    public var set: OwnerSettings
    /// The members to unset (sent as `null`), in ``OwnerSettings/Field`` order.
    public var unset: [OwnerSettings.Field]

    public init(set: OwnerSettings = OwnerSettings(), unset: [OwnerSettings.Field] = []) {
        self.set = set
        self.unset = unset
    }

    /// Whether the patch names no member at all (`{}`): it changes nothing.
    public var isEmpty: Bool { self.set.isEmpty && unset.isEmpty }

    /// `stored` with this patch applied.
    public func applied(to stored: OwnerSettings) -> OwnerSettings {
        stored.merging(set).unsetting(unset)
    }

    /// A patch from a JSON object, every set member checked as ``OwnerSettings/decode(json:)``
    /// checks it (unknown members refused by name, wrong types and ranges named).
    /// - Throws: ``SettingsError`` naming the member that is wrong, or
    ///   ``SettingsError/Code/notAnObject``.
    public static func decode(json: Data) throws(SettingsError) -> OwnerSettingsPatch {
        // Members sent as null read as absent here; they are found by NullMembers below.
        let set = try OwnerSettings.decode(json: json)
        let nulls: NullMembers
        do {
            nulls = try JSONDecoder().decode(NullMembers.self, from: json)
        } catch {
            // OwnerSettings.decode read the same bytes as an object: this cannot fail after it.
            throw SettingsError(.notAnObject, field: nil, message: "the body is not a JSON object of settings")
        }
        return OwnerSettingsPatch(set: set, unset: nulls.fields)
    }
}

/// The settings members a JSON object gives as `null`.
private struct NullMembers: Decodable {
    var fields: [OwnerSettings.Field]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: OwnerSettings.Field.self)
        fields = try OwnerSettings.Field.allCases.filter { try container.contains($0) && container.decodeNil(forKey: $0) }
    }
}
