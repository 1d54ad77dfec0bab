/// One step of a request, in one shape: one input, one output, and only what the step uses held by it. The
/// orchestrator calls them in order and reads each output, so where a step answers early is visible there:
/// `ImagePipeline.run` (memory, the processed result on disk, then decode, transform, store) and
/// `ImagePipeline.original` (the original on disk, the shared tier, the origin), which `DataPipeline` uses too. A step that needs no
/// suspension is written synchronously and called directly, so it costs no more than a function call.
protocol PipelineStage: Sendable {
    associatedtype Input
    associatedtype Output
    func run(_ input: Input) async throws -> Output
}
