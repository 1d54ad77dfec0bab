import Foundation
import TroveCore

/// Every preview `decoder` gives for `data` fed as a download delivers it: prefixes growing by `step` bytes,
/// the last one the whole body. A fresh incremental decode, bounded by `limits`.
package func previews(
    from decoder: any ProgressiveImageDecoder, of data: Data, step: Int, limits: DecodingLimits = .default
) throws -> [Image] {
    let incremental = decoder.makeIncrementalDecoder(limits: limits)
    var previews: [Image] = []
    for end in stride(from: step, through: data.count + step - 1, by: step) {
        if let preview = try incremental.preview(data.prefix(min(end, data.count))) { previews.append(preview) }
    }
    return previews
}
