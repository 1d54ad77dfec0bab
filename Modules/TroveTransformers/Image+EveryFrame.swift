import TroveCore

extension Image {
    /// Applies a pixel operation to this image and to every animation frame, as straight-alpha RGBA8.
    ///
    /// `operation` reads a tightly packed `width x height` RGBA8 buffer and must write every byte of a
    /// `newWidth x newHeight` one (the output is not zeroed first). The result keeps the source format
    /// and frame delays; `orientation` replaces the recorded EXIF orientation when given.
    func mappingEveryFrame(
        toWidth newWidth: Int, height newHeight: Int, orientation newOrientation: ExifOrientation? = nil,
        _ operation: (_ source: UnsafeBufferPointer<UInt8>, _ destination: UnsafeMutableBufferPointer<UInt8>) -> Void
    ) throws -> Image {
        try DecodingLimits.default.check(width: newWidth, height: newHeight)
        let source = convertedToRGBA8()
        let sourceBytes = source.width * source.height * 4
        let outputBytes = newWidth * newHeight * 4
        func apply(_ pixels: [UInt8]) -> [UInt8] {
            guard outputBytes > 0 else { return [] }
            return [UInt8](unsafeUninitializedCapacity: outputBytes) { output, initialized in
                pixels.withUnsafeBufferPointer { input in
                    operation(
                        UnsafeBufferPointer(rebasing: input[0..<sourceBytes]),
                        UnsafeMutableBufferPointer(rebasing: output[0..<outputBytes]))
                }
                initialized = outputBytes
            }
        }
        let frames = try source.frames.enumerated().map { index, frame in
            // Frames come from a decoder; a malformed one must fail cleanly, not read out of bounds.
            guard frame.pixels.count == sourceBytes else {
                throw TroveError.invalidConfiguration(
                    "animation frame \(index) holds \(frame.pixels.count) bytes, expected \(sourceBytes) for "
                        + "\(source.width)x\(source.height) RGBA8; the decoder produced a malformed frame")
            }
            return AnimationFrame(pixels: apply(frame.pixels), delay: frame.delay)
        }
        return Image(
            width: newWidth, height: newHeight, pixelFormat: .rgba8, pixels: apply(source.pixels),
            sourceFormat: source.sourceFormat, frames: frames,
            orientation: newOrientation ?? source.orientation)
    }

    /// `mappingEveryFrame` for operations that keep the size.
    func mappingEveryFrame(
        _ operation: (_ source: UnsafeBufferPointer<UInt8>, _ destination: UnsafeMutableBufferPointer<UInt8>) -> Void
    ) throws -> Image {
        try mappingEveryFrame(toWidth: width, height: height, operation)
    }
}
