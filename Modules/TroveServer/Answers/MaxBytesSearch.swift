import Trove

/// imgproxy's `max_bytes`: encodes again at lower qualities until the result fits, by bisection between
/// a floor and the quality first used, keeping the best quality that fits; at the floor, the floor's
/// result is served even when it does not fit (imgproxy does the same rather than fail).
struct MaxBytesSearch {
    /// Formats whose size follows the quality setting.
    static let formats: Set<ImageFormat> = [.jpeg, .webp, .avif, .heic, "tiff"]

    let maxBytes: Int
    let floor: Int
    let start: Int

    /// `encode(quality)` makes the result at that quality; `first` is the result at `start`, too large.
    func run(
        startingWith first: ImageResponse, encode: (Int) async throws -> ImageResponse
    ) async throws -> ImageResponse {
        var low = max(1, min(floor, start - 1)), high = start - 1
        guard high >= low else { return first }
        var best: ImageResponse?
        var smallest = first
        while low <= high {
            let quality = (low + high) / 2
            let response = try await encode(quality)
            if response.data.count <= maxBytes {
                best = response
                low = quality + 1
            } else {
                if response.data.count < smallest.data.count { smallest = response }
                high = quality - 1
            }
        }
        return best ?? smallest
    }
}
