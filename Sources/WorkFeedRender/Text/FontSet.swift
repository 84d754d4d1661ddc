/// The map's fonts for one render thread: the main font, then the fallbacks for scripts it lacks,
/// each opened on first use (FreeType faces belong to one thread).
///
/// A name is drawn whole in one font: the first, main font first, that has a glyph for every
/// character. A name none of them covers is drawn from its Latin form; a name whose Latin form
/// is not covered either is not drawn. Never a box for a missing glyph.
final class FontSet {
    let paths: [String]
    private var faces: [FontFace?]
    private var opened: [Bool]
    /// Which font draws a text, by text: -1 for none. Bounded like a glyph cache.
    private var choices: [String: Int] = [:]
    static let choiceLimit = 4096

    init(paths: [String]) {
        self.paths = paths
        faces = Array(repeating: nil, count: paths.count)
        opened = Array(repeating: false, count: paths.count)
    }

    /// The main font; `nil` only if the file stopped being a font after the basemap checked it.
    var main: FontFace? { face(0) }

    /// The font that draws `text` whole, or `nil`.
    func font(for text: String) -> FontFace? {
        guard !text.isEmpty else { return nil }
        if let index = choices[text] { return index < 0 ? nil : face(index) }
        var chosen = -1
        for index in paths.indices {
            if let face = face(index), face.covers(text) {
                chosen = index
                break
            }
        }
        if choices.count >= Self.choiceLimit { choices.removeAll(keepingCapacity: true) }
        choices[text] = chosen
        return chosen < 0 ? nil : face(chosen)
    }

    /// What to draw for a place called `name`, whose Latin form is `latin`: the name itself where
    /// a font draws it, else the Latin form; `nil` when neither can be drawn.
    func resolve(name: String, latin: String) -> (font: FontFace, text: String)? {
        if let font = font(for: name) { return (font, name) }
        if latin != name, let font = font(for: latin) { return (font, latin) }
        return nil
    }

    private func face(_ index: Int) -> FontFace? {
        guard paths.indices.contains(index) else { return nil }
        if !opened[index] {
            opened[index] = true
            faces[index] = try? FontFace(path: paths[index])
        }
        return faces[index]
    }
}
