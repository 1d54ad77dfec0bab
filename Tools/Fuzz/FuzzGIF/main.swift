import FuzzDriver
import TroveCodec

// libFuzzer target for GIFDecoder (see FuzzDriver for what it checks).
fuzz(GIFDecoder())
