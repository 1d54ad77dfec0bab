import FuzzDriver
import TroveHEIF

// libFuzzer target for HEIFDecoder over libheif and libde265 (see FuzzDriver for what it checks).
fuzz(HEIFDecoder(maxThreads: 0))
