import Testing
import TroveTestSupport

@testable import TroveEviction

@Suite struct CountMinSketchTests {
    @Test func countsSaturateAtFifteenAndHalve() {
        var sketch = CountMinSketch(expectedEntries: 64)
        for _ in 0..<9 { sketch.increment(42) }
        #expect(sketch.frequency(42) == 9)
        #expect(sketch.frequency(7) == 0)
        for _ in 0..<20 { sketch.increment(42) }
        #expect(sketch.frequency(42) == 15)
        sketch.halve()
        #expect(sketch.frequency(42) == 7)
    }

    /// Only additions that changed a counter advance the sample (a saturated key's do not).
    @Test func aKeyWhoseRowsShareACounterSaturatesWithoutCarryingIntoItsNeighbour() {
        // In a 16-word table about one key in 40 has two rows on the same counter; before the fix such a
        // counter grew twice per sighting, carried into the next counter (reading back 0) or, as the
        // word's top counter, trapped on overflow. Every key must count up to 15 and stay there.
        for key in 0..<4000 {
            var sketch = CountMinSketch(expectedEntries: 16)
            for sighting in 1...20 {
                sketch.increment(key)
                #expect(sketch.frequency(key) == min(sighting, 15), "key \(key) after \(sighting) sightings")
                if sketch.frequency(key) != min(sighting, 15) { return }
            }
        }
    }

    @Test func agesAfterTheSampleSizeOfCountedAdditions() {
        var sketch = CountMinSketch(expectedEntries: 16)
        #expect(sketch.sampleSize == 160)
        for _ in 0..<45 { sketch.increment(7) }
        #expect(sketch.frequency(7) == 15)
        #expect(sketch.additions == 15)
        var halvings = 0
        for key in 100..<244 where sketch.increment(key) { halvings += 1 }
        #expect(halvings == 0)
        #expect(sketch.additions == 159)
        let halved = sketch.increment(1_000)
        #expect(halved)
        #expect(sketch.frequency(7) == 7)
        #expect(sketch.additions == 80)
    }

    /// A count-min sketch never underestimates (before aging), whatever the collisions.
    @Test func neverUnderestimates() {
        var sketch = CountMinSketch(expectedEntries: 16)
        var truth: [Int: Int] = [:]
        var generator = SplitMix64(seed: 3)
        for _ in 0..<150 {
            let key = Int(bitPattern: UInt(generator.next() % 40))
            sketch.increment(key)
            truth[key, default: 0] += 1
        }
        for (key, count) in truth { #expect(sketch.frequency(key) >= min(count, 15)) }
    }

    @Test func doorkeeperRemembersFirstSightings() {
        var doorkeeper = Doorkeeper(expectedEntries: 16)
        let first = doorkeeper.insert(5), second = doorkeeper.insert(5)
        #expect(!first)
        #expect(second)
        #expect(doorkeeper.contains(5))
        doorkeeper.removeAll()
        #expect(!doorkeeper.contains(5))
    }
}
