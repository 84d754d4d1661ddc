public import Logging
import Synchronization

/// What a cache keeps of a tile: ``DecodedTile``, or what a renderer makes of one.
public protocol CachedTile: AnyObject, Sendable {
    /// What the tile costs in memory, roughly: the ``TileCache`` budget counts this.
    var estimatedBytes: Int { get }
}

/// What ``TileCache/tile(source:at:prepare:)`` found.
public enum TileLookup<Tile: Sendable>: Sendable {
    case tile(Tile)
    /// The tileset has no such tile (the sea, outside its bounds or zooms).
    case absent
    /// The tile exists but cannot be read or decoded; the error names the tileset and the tile.
    case broken(TileError)
    /// A remote tileset cannot give the tile now (``TileError/Code/unavailable``): nothing is
    /// remembered, and the next lookup asks the tileset again.
    case unavailable(TileError)
}

/// Counters since the cache was made, and what it holds now.
public struct TileCacheStatistics: Sendable, Hashable {
    /// Lookups answered from the cache (tiles, absent and broken alike).
    public var hits = 0
    /// Lookups that read the tileset.
    public var misses = 0
    /// Entries dropped to stay within the budget.
    public var evictions = 0
    /// Broken tiles found (each counted when it was first stored, not on later hits).
    public var brokenTiles = 0
    /// Lookups a remote tileset could not answer (``TileLookup/unavailable``), none stored.
    public var unavailableTiles = 0
    /// Estimated bytes of the entries held now.
    public var residentBytes = 0
    /// Entries held now.
    public var entryCount = 0
}

/// Decoded tiles of a fixed list of tilesets, kept within a byte budget, least recently used
/// first out. Safe to use from any thread.
///
/// What it keeps is `Tile`: the ``DecodedTile`` itself, or what the caller's `prepare` makes of it
/// once (the renderer keeps tiles classified into map features), so that work is not repeated for
/// every picture.
///
/// Absent and broken tiles are remembered too (as small entries that count against the budget),
/// so a picture that needs a missing tile a hundred times reads the tileset once. A broken tile is
/// logged once, as a warning with the tileset's path, the tile and the error, and counted in
/// ``Statistics/brokenTiles``; it is read again only after its entry was evicted. A tile a remote
/// tileset cannot give now (a timeout, a 5xx) is not broken: it is returned as
/// ``TileLookup/unavailable`` and not stored, so the next lookup fetches it again.
///
/// Reading and decoding happen outside the lock: two threads that miss the same tile at once may
/// both decode it, and the first one stored wins (both get that one). ``tile(source:at:)``
/// blocks on file I/O, so call it from a thread of your own rather than Swift's cooperative pool.
///
/// ```swift
/// let cache = TileCache<DecodedTile>(sources: [try Tileset.open(path: path)], budgetBytes: 256 << 20, logger: logger)
/// if case .tile(let tile) = cache.tile(source: 0, at: TileCoordinate(z: 14, x: 8587, y: 5598)) { … }
/// ```
public final class TileCache<Tile: CachedTile>: Sendable {
    public let sources: [any TileSource]
    /// The most ``Statistics/residentBytes`` may reach. A tile larger than the whole budget is
    /// returned but not kept.
    public let budgetBytes: Int
    private let logger: Logger
    private let state: Mutex<State>

    public typealias Statistics = TileCacheStatistics

    /// - Parameters:
    ///   - sources: the tilesets; ``tile(source:at:)`` takes an index into this list.
    ///   - budgetBytes: the most the cache holds, by ``DecodedTile/estimatedBytes``.
    ///   - logger: where broken tiles are reported.
    public init(sources: [any TileSource], budgetBytes: Int, logger: Logger) {
        self.sources = sources
        self.budgetBytes = max(0, budgetBytes)
        self.logger = logger
        state = Mutex(State())
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// The tile at `coordinate` of `sources[source]`, from the cache or read, decoded, prepared and
    /// stored.
    ///
    /// A vector tile is decoded (``VectorTile/init(decoding:)-([UInt8])``); PNG, JPEG and WebP
    /// tiles are passed on as bytes; anything else is broken, and so is a tile `prepare` throws
    /// for. An index past `sources` is broken too (and not stored). `prepare` runs on the calling
    /// thread, only when the tile is read.
    public func tile(
        source: Int, at coordinate: TileCoordinate, prepare: (DecodedTile.Content) throws(TileError) -> Tile
    ) -> TileLookup<Tile> {
        guard sources.indices.contains(source) else {
            return .broken(TileError(.unreadable, "no tileset number \(source): the cache has \(sources.count)", tile: coordinate))
        }
        let key = Key(source: source, coordinate: coordinate)
        if let found = state.withLock({ $0.lookup(key) }) { return found }

        let loaded = load(sources[source], coordinate, prepare)
        if case .unavailable = loaded {
            state.withLock { $0.statistics.unavailableTiles += 1 }
            return loaded
        }
        let (stored, isNew) = state.withLock { $0.insert(key, loaded, bytes: Self.cost(of: loaded), budget: budgetBytes) }
        if isNew, case .broken(let error) = stored {
            logger.warning(
                "Broken tile",
                metadata: [
                    "tileset": .string(sources[source].info.path), "tile": .stringConvertible(coordinate),
                    "error": .string("\(error.code.rawValue): \(error.message)"),
                ])
        }
        return stored
    }

    private func load(
        _ source: any TileSource, _ coordinate: TileCoordinate, _ prepare: (DecodedTile.Content) throws(TileError) -> Tile
    ) -> TileLookup<Tile> {
        do throws(TileError) {
            guard let bytes = try source.tileData(at: coordinate) else { return .absent }
            switch Tileset.sniff(bytes) {
            case .vector:
                let tile = try VectorTile(decoding: bytes)
                let skipped = tile.skippedLayers + tile.layers.reduce(0) { $0 + $1.skippedFeatures }
                if skipped > 0 {
                    logger.debug(
                        "Tile decoded without its invalid features or duplicate layers",
                        metadata: ["tileset": .string(source.info.path), "tile": .stringConvertible(coordinate), "skipped": "\(skipped)"])
                }
                return .tile(try prepare(.vector(tile)))
            case .some(let format):
                return .tile(try prepare(.image(bytes, format)))
            case nil:
                throw TileError(.malformedTile, "neither a vector tile nor an image: \(Tileset.describe(bytes))")
            }
        } catch {
            var error = error
            error.path = error.path ?? source.info.path
            error.tile = error.tile ?? coordinate
            return error.code == .unavailable ? .unavailable(error) : .broken(error)
        }
    }

    /// Negative entries cost a little, so that a flood of them still respects the budget.
    private static func cost(of lookup: TileLookup<Tile>) -> Int {
        switch lookup {
        case .tile(let tile): tile.estimatedBytes
        case .absent: DecodedTile.objectOverhead
        case .broken(let error), .unavailable(let error):
            2 * DecodedTile.objectOverhead + error.message.utf8.count + (error.path?.utf8.count ?? 0)
        }
    }

    private struct Key: Hashable {
        var source: Int
        var coordinate: TileCoordinate
    }

    /// The entries in a doubly linked list threaded through an array (most recent at `head`), and
    /// a dictionary from key to slot.
    private struct State: ~Copyable {
        struct Slot {
            var key: Key
            var value: TileLookup<Tile>
            var bytes: Int
            var previous: Int
            var next: Int
        }

        var slots: [Slot] = []
        var freeSlots: [Int] = []
        var index: [Key: Int] = [:]
        var head = -1
        var tail = -1
        var statistics = Statistics()

        mutating func lookup(_ key: Key) -> TileLookup<Tile>? {
            guard let slot = index[key] else {
                statistics.misses += 1
                return nil
            }
            statistics.hits += 1
            moveToFront(slot)
            return slots[slot].value
        }

        /// Stores `value` unless another thread stored the key first; returns what is stored (or
        /// `value`, when it is larger than the budget) and whether it is new.
        mutating func insert(_ key: Key, _ value: TileLookup<Tile>, bytes: Int, budget: Int) -> (TileLookup<Tile>, Bool) {
            if let slot = index[key] {
                moveToFront(slot)
                return (slots[slot].value, false)
            }
            if case .broken = value { statistics.brokenTiles += 1 }
            guard bytes <= budget else { return (value, true) }
            while statistics.residentBytes + bytes > budget, tail >= 0 {
                remove(tail)
                statistics.evictions += 1
            }
            let entry = Slot(key: key, value: value, bytes: bytes, previous: -1, next: head)
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
                slots[slot] = entry
            } else {
                slot = slots.count
                slots.append(entry)
            }
            if head >= 0 { slots[head].previous = slot }
            head = slot
            if tail < 0 { tail = slot }
            index[key] = slot
            statistics.residentBytes += bytes
            statistics.entryCount += 1
            return (value, true)
        }

        private mutating func unlink(_ slot: Int) {
            let previous = slots[slot].previous
            let next = slots[slot].next
            if previous >= 0 { slots[previous].next = next } else { head = next }
            if next >= 0 { slots[next].previous = previous } else { tail = previous }
        }

        private mutating func moveToFront(_ slot: Int) {
            guard head != slot else { return }
            unlink(slot)
            slots[slot].previous = -1
            slots[slot].next = head
            if head >= 0 { slots[head].previous = slot }
            head = slot
            if tail < 0 { tail = slot }
        }

        private mutating func remove(_ slot: Int) {
            unlink(slot)
            index[slots[slot].key] = nil
            statistics.residentBytes -= slots[slot].bytes
            statistics.entryCount -= 1
            // Drop the tile now rather than when the slot is reused.
            slots[slot].value = .absent
            freeSlots.append(slot)
        }

        /// Keys from most to least recently used (for tests).
        var order: [Key] {
            var keys: [Key] = []
            var slot = head
            while slot >= 0 {
                keys.append(slots[slot].key)
                slot = slots[slot].next
            }
            return keys
        }
    }

    /// The cached tiles of one tileset from most to least recently used: what the next eviction
    /// spares longest. For tests and diagnostics.
    public func recency(source: Int) -> [TileCoordinate] {
        state.withLock { state in state.order.filter { $0.source == source }.map(\.coordinate) }
    }
}

extension TileCache where Tile == DecodedTile {
    /// The decoded tile itself, as ``tile(source:at:prepare:)`` stores it when nothing more is made of it.
    public func tile(source: Int, at coordinate: TileCoordinate) -> TileLookup<DecodedTile> {
        tile(source: source, at: coordinate) { content in DecodedTile(content) }
    }
}
