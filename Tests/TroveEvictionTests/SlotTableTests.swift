import Testing
import TroveEviction
import TroveTestSupport

@Suite struct SlotTableTests {
    @Test func freedSlotsAreReusedMostRecentFirst() {
        var table = SlotTable<String>()
        #expect(table.insert("a") == 0)
        #expect(table.insert("b") == 1)
        #expect(table.insert("c") == 2)
        #expect(table.remove("a") == 0)
        #expect(table.removeSlot(2) == "c")
        #expect(table.removeSlot(2) == nil)  // already free
        #expect(table.remove("missing") == nil)
        #expect(table.insert("d") == 2)
        #expect(table.insert("e") == 0)
        #expect(table.insert("f") == 3)
        #expect(table.count == 4)
        #expect(table.slotCapacity == 4)
        #expect(table.slot(for: "b") == 1)
        #expect(table.key(at: 2) == "d")
        #expect(table.key(at: 99) == nil)
        table.removeAll()
        #expect(table.count == 0)
        #expect(table.slot(for: "b") == nil)
        #expect(table.insert("g") == 0)
    }

    /// Random inserts and removals against a dictionary, with hashes squeezed into a few values so
    /// long probe runs form and removals must shift later entries back.
    @Test(arguments: [3, 64, Int.max])
    func agreesWithADictionary(hashSpread: Int) {
        var table = SlotTable<Int>()
        var model: [Int: Int] = [:]
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: hashSpread))
        func hash(_ key: Int) -> Int { hashSpread == .max ? key.hashValue : (key % hashSpread) &* 0x1_0001 }
        for _ in 0..<20_000 {
            let key = Int(generator.next() % 300)
            switch generator.next() % 3 {
            case 0:
                if model[key] == nil { model[key] = table.insert(key, hash: hash(key)) }
            case 1:
                #expect(table.remove(key, hash: hash(key)) == model.removeValue(forKey: key))
            default:
                if let slot = model[key], generator.next() % 2 == 0 {
                    #expect(table.removeSlot(slot) == key)
                    model.removeValue(forKey: key)
                }
            }
            #expect(table.count == model.count)
        }
        for key in 0..<300 {
            #expect(table.slot(for: key, hash: hash(key)) == model[key])
        }
        // Slots in use are distinct and each maps back to its key.
        #expect(Set(model.values).count == model.count)
        for (key, slot) in model { #expect(table.key(at: slot) == key) }
    }
}
