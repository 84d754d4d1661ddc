import Testing
import WorkFeedTiles

@Suite struct TileCoordinateTests {
    @Test func describesItselfAsZXY() {
        #expect(TileCoordinate(z: 14, x: 8580, y: 5626).description == "14/8580/5626")
    }
}
