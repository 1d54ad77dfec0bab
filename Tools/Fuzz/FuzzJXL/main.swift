import FuzzDriver
import TroveJXL

// libFuzzer target for JXLDecoder over libjxl (see FuzzDriver for what it checks).
fuzz(JXLDecoder(maxThreads: 1))
