import Foundation
import Testing
import TroveCore

@Suite struct PercentDecodingTests {
    @Test func answersAsFoundationDoes() {
        let samples = [
            "", "http://example.com/a.jpg", "/a%20b/%E2%9C%93.png", "%", "%2", "%zz", "100%", "%C3%28", "%2F%2f",
            "a+b", "%41%42c", "https://host/%40x@webp", "/caf\u{E9}/\u{1F600}.png", "\u{E9}%C3%A9"
        ]
        for sample in samples {
            #expect(sample.percentDecoded == sample.removingPercentEncoding, "\(sample)")
            // A slice from the middle of a longer text: only its own bytes count.
            let slice = ("%zz" + sample + "%").dropFirst(3).dropLast()
            #expect(slice.percentDecoded == sample.removingPercentEncoding, "\(sample) as a substring")
        }
        #expect("/a%20b/%E2%9C%93.png".percentDecoded == "/a b/✓.png")
        #expect("%zz".percentDecoded == nil)
    }
}
