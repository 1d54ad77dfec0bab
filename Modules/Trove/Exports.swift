// `import Trove` is all an app needs: the umbrella re-exports the vocabulary and the standard plugins.
@_exported import TroveCodec
@_exported import TroveCore
@_exported import TroveDiskCache
@_exported import TroveEviction
@_exported import TroveFetcher
@_exported import TroveMemoryCache
@_exported import TroveTransformers
