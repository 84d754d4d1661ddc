import WorkFeedModel
import WorkFeedStyle

/// What every store checks before it returns stored bytes as a picture.
public enum StoredPicture {
    /// The most bytes a read takes in under a picture's name: the largest picture this system can
    /// draw (``PictureSpec/maximumEncodedBytes``, from the largest size and scale). A larger object
    /// is refused (``PictureStoreError/Refusal/tooLarge``) before it is buffered: a directory reads
    /// the file's size first, a bucket's answer is cut off at its `Content-Length` or at this many
    /// bytes of its body.
    public static let maximumBytes = PictureSpec.maximumEncodedBytes

    /// The bytes of a picture's head that hold its text chunks (workers write the key right after
    /// the header).
    static let headSize = 4096

    /// Checks that `bytes` are a PNG (its signature) and, when `key` is given, that its embedded
    /// cache key (a `tEXt` chunk, read without decoding the picture) is `key`.
    static func check(_ bytes: [UInt8], key: String?, path: String) throws(PictureStoreError) {
        guard bytes.starts(with: PNGText.signature) else { throw PictureStoreError(refusal: .notPNG, path: path) }
        guard let key else { return }
        // Workers write the key right after the header.
        guard PNGText.value(of: CacheLayout.keyTextKeyword, in: Array(bytes.prefix(4096))) == key else {
            throw PictureStoreError(refusal: .otherKey, path: path)
        }
    }

}
