import FuzzDriver
import TroveAVIF

// libFuzzer target for AVIFDecoder over libavif (see FuzzDriver for what it checks).
fuzz(AVIFDecoder(maxThreads: 1))
