import FixtureServer
import Foundation
import MetricsTestKit
import Trove
import TroveTestSupport

/// A pipeline on a fresh cache directory with metrics the test can read, and no retry delays unless asked.
func makePipeline(
    _ directory: URL, metrics: TestMetrics = TestMetrics(),
    _ adjust: (inout PipelineConfiguration) -> Void = { _ in }
) throws -> ImagePipeline {
    var configuration = PipelineConfiguration(cacheDirectory: directory)
    configuration.metricsFactory = metrics
    configuration.retryPolicy = .none
    adjust(&configuration)
    return try ImagePipeline(configuration: configuration)
}

extension TestMetrics {
    func total(_ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        (try? expectCounter(label, dimensions).totalValue) ?? 0
    }
}

func pngData(_ name: String) throws -> Data {
    try Data(contentsOf: Fixtures.images.appendingPathComponent(name))
}
