/// One step of a request, in one shape: one input, one output, and only what the step uses held by it. The
/// orchestrators call them in order and read each output, so where a step answers early is visible there:
/// `ImagePipeline.run` (memory, the processed result on disk, then decode, transform, store) and `RawStages`
/// (the original on disk, the shared tier, the origin), shared with `DataPipeline`. A step that needs no
/// suspension is written synchronously and called directly, so it costs no more than a function call.
protocol PipelineStage: Sendable {
    associatedtype Input
    associatedtype Output
    func run(_ input: Input) async throws -> Output
}
