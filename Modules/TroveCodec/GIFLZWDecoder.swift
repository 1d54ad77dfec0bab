import TroveCore

/// Decodes a GIF frame's LZW stream (variable-width codes, LSB first, up to 12 bits) into palette indices.
enum GIFLZWDecoder {
    private static let maxCodes = 4096

    /// Fills `output` with up to `output.count` indices from `data` and returns how many it filled: a stream
    /// that ends (or hits its end code) first leaves the rest, as browsers leave a cut frame's pixels
    /// undrawn. Data past the last pixel is ignored; a code the table cannot hold is an error.
    @discardableResult
    static func decode(
        _ data: UnsafeRawBufferPointer, minimumCodeSize: Int,
        into output: UnsafeMutableBufferPointer<UInt8>, frame: Int
    ) throws -> Int {
        let clearCode = 1 << minimumCodeSize
        let endCode = clearCode + 1
        // Each table entry is a string: the entry it extends, its last byte, its first byte and its length.
        var prefix = [UInt16](repeating: 0, count: maxCodes)
        var suffix = [UInt8](repeating: 0, count: maxCodes)
        var first = [UInt8](repeating: 0, count: maxCodes)
        var length = [UInt16](repeating: 0, count: maxCodes)
        for code in 0..<clearCode {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
            length[code] = 1
        }

        var codeSize = minimumCodeSize + 1
        var nextCode = clearCode + 2
        var previous = -1
        var bitBuffer: UInt64 = 0
        var bitCount = 0
        var inputIndex = 0
        var written = 0
        let total = output.count

        try prefix.withUnsafeMutableBufferPointer { prefix in
            try suffix.withUnsafeMutableBufferPointer { suffix in
                try first.withUnsafeMutableBufferPointer { first in
                    try length.withUnsafeMutableBufferPointer { length in
                        while written < total {
                            while bitCount < codeSize {
                                guard inputIndex < data.count else { return }
                                bitBuffer |= UInt64(data[inputIndex]) << UInt64(bitCount)
                                inputIndex += 1
                                bitCount += 8
                            }
                            let code = Int(bitBuffer & ((1 << UInt64(codeSize)) - 1))
                            bitBuffer >>= UInt64(codeSize)
                            bitCount -= codeSize

                            if code == clearCode {
                                codeSize = minimumCodeSize + 1
                                nextCode = clearCode + 2
                                previous = -1
                                continue
                            }
                            if code == endCode { return }
                            // The string to emit, and the first byte of the entry to add after it.
                            let emitted: Int
                            if previous < 0 {
                                guard code < clearCode else {
                                    throw GIFLayout.failure("invalid LZW code \(code) in frame \(frame)")
                                }
                                emitted = code
                            } else if code < nextCode {
                                emitted = code
                                if nextCode < maxCodes {
                                    prefix[nextCode] = UInt16(previous)
                                    suffix[nextCode] = first[code]
                                    first[nextCode] = first[previous]
                                    length[nextCode] = length[previous] &+ 1
                                    nextCode += 1
                                }
                            } else if code == nextCode && nextCode < maxCodes {
                                // The "KwKwK" case: the code being defined is used at once.
                                prefix[nextCode] = UInt16(previous)
                                suffix[nextCode] = first[previous]
                                first[nextCode] = first[previous]
                                length[nextCode] = length[previous] &+ 1
                                nextCode += 1
                                emitted = code
                            } else {
                                throw GIFLayout.failure(
                                    "invalid LZW code \(code) in frame \(frame) "
                                        + "(the table holds \(nextCode) codes)")
                            }
                            if nextCode == 1 << codeSize && codeSize < 12 { codeSize += 1 }
                            previous = code

                            // Strings are stored back to front, so write from the end of the string.
                            let stringLength = Int(length[emitted])
                            var position = written + stringLength - 1
                            var entry = emitted
                            // Entries past the end of the frame are dropped, but the walk still has to
                            // reach the string's start.
                            while position >= total {
                                entry = Int(prefix[entry])
                                position -= 1
                            }
                            while position > written {
                                output[position] = suffix[entry]
                                entry = Int(prefix[entry])
                                position -= 1
                            }
                            output[written] = suffix[entry]
                            written = min(written + stringLength, total)
                        }
                    }
                }
            }
        }
        return written
    }
}
