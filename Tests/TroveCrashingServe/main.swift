// `trove serve` with one more decoder: it claims files that start with "TROVE-TRAP" and traps on them, as a
// decoder bug on a real file would. Only the crash-guard tests run it, to kill a server on purpose.
import Foundation
import Trove
import TroveAVIF
import TroveColor
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveRedis
import TroveServer
import TroveWebP

/// Claims "TROVE-TRAP" files and traps on them: an index out of range, as in a real decoder's bug.
struct TrappingDecoder: ImageDecoder {
    static let marker = Array("TROVE-TRAP".utf8)
    let name = "trap"
    let format = ImageFormat(rawValue: "trap")

    func canDecode(_ header: Data) -> Bool { header.starts(with: Self.marker) }

    func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        let bytes = [UInt8](data)
        let index = bytes.count + Int(bytes[bytes.count - 1] & 1)
        _ = bytes[index]  // out of range: Swift traps
        throw TroveError.decodingFailed(format: format, reason: "unreachable")
    }
}

var registry = PluginRegistry.standard
try registry.install(TroveJPEGPlugin())
try registry.install(TroveRedisPlugin())
try registry.install(TroveWebPPlugin())
try registry.install(TroveAVIFPlugin())
try registry.install(TroveJXLPlugin())
try registry.install(TroveHEIFPlugin())
try registry.install(TroveColorPlugin())
try registry.register(decoder: TrappingDecoder())
let configuration = try ServerConfiguration(
    environment: ProcessInfo.processInfo.environment, arguments: Array(CommandLine.arguments.dropFirst()))
let server = try ImageProxyServer(configuration: configuration, registry: registry)
try await server.run { port in
    FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port)\n".utf8))
}
