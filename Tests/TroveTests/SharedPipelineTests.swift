import Foundation
import Synchronization
import Testing
import Trove

/// `ImagePipeline.shared`: lazily built, replaceable once and only before the first read.
/// How many times a slot built its default pipeline.
final class BuildCount: Sendable {
    private let count = Mutex(0)

    func add() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}

@Suite(.serialized) struct SharedPipelineTests {
    /// A slot whose default pipeline is memory-only, counting how many times it is built.
    func slot(builds: BuildCount) -> SharedPipelineSlot<ImagePipeline> {
        SharedPipelineSlot(name: "the slot") {
            builds.add()
            return try! ImagePipeline(configuration: .memoryOnly)
        }
    }

    @Test func theDefaultIsBuiltOnceOnFirstReadAndThenCannotBeReplaced() throws {
        let builds = BuildCount()
        let slot = slot(builds: builds)
        #expect(builds.value == 0)
        let first = slot.pipeline
        #expect(slot.pipeline === first && builds.value == 1)
        let other = try ImagePipeline(configuration: .memoryOnly)
        #expect(
            throws: TroveError.invalidConfiguration(
                "the slot was already read (and built with the defaults); replace it once, at start-up, before anything reads it"
            )
        ) { try slot.replace(with: other) }
        #expect(slot.pipeline === first)
    }

    @Test func aReplacementIsWhatEveryReadGetsAndASecondReplacementFails() throws {
        let builds = BuildCount()
        let slot = slot(builds: builds)
        let mine = try ImagePipeline(configuration: .memoryOnly)
        try slot.replace(with: mine)
        #expect(slot.pipeline === mine && slot.pipeline === mine)
        let again = try ImagePipeline(configuration: .memoryOnly)
        #expect(
            throws: TroveError.invalidConfiguration(
                "the slot was already replaced; replace it once, at start-up, before anything reads it"
            )
        ) { try slot.replace(with: again) }
        #expect(slot.pipeline === mine)
        // The default was never built.
        #expect(builds.value == 0)
    }

    /// The process-wide one; the only test in this process that touches it.
    @Test func theSharedPipelineIsTheOneReplacedAtStartUp() throws {
        var configuration = PipelineConfiguration.memoryOnly
        configuration.memory.countLimit = 7
        let mine = try ImagePipeline(configuration: configuration)
        try ImagePipeline.replaceShared(with: mine)
        #expect(ImagePipeline.shared === mine)
        #expect(ImagePipeline.shared.configuration.memory.countLimit == 7)
        #expect(throws: TroveError.self) {
            try ImagePipeline.replaceShared(with: ImagePipeline(configuration: .memoryOnly))
        }
        #expect(ImagePipeline.shared === mine)
    }
}
