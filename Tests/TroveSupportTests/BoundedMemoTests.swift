import Testing
import TroveSupport

@Suite struct BoundedMemoTests {
    struct Refused: Error {}

    @Test func eachKeyIsWorkedOutOnceWhileItFits() {
        let memo = BoundedMemo<String, Int>(capacity: 4)
        var computed: [String] = []
        for key in ["a", "bb", "a", "ccc", "bb", "a"] {
            let value = memo.value(for: key) { key in
                computed.append(key)
                return key.count
            }
            #expect(value == key.count)
        }
        #expect(computed == ["a", "bb", "ccc"])
        #expect(memo.count == 3)
    }

    @Test func whenFullItStartsOverAndStillAnswersRight() {
        let memo = BoundedMemo<Int, Int>(capacity: 2)
        var computations = 0
        func square(_ key: Int) -> Int {
            memo.value(for: key) { key in
                computations += 1
                return key * key
            }
        }
        #expect(square(2) == 4 && square(3) == 9)
        #expect(computations == 2 && memo.count == 2)
        // A third key finds it full: it starts over with just that key.
        #expect(square(4) == 16)
        #expect(memo.count == 1 && computations == 3)
        #expect(square(2) == 4)  // forgotten, worked out again
        #expect(computations == 4 && memo.count == 2)
    }

    @Test func aValueThatCouldNotBeMadeIsNotKept() throws {
        let memo = BoundedMemo<String, Int>(capacity: 8)
        #expect(throws: Refused.self) { try memo.value(for: "x") { _ in throw Refused() } }
        #expect(memo.count == 0)
        #expect(memo.value(for: "x") { _ in 7 } == 7)
        #expect(memo.count == 1)
    }
}
