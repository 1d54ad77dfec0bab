import FuzzDriver
import TroveCodec

// libFuzzer target for PNGDecoder (see FuzzDriver for what it checks).
fuzz(PNGDecoder())
