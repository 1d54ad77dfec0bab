import FuzzDriver
import TroveJPEG

// libFuzzer target for JPEGDecoder (see FuzzDriver for what it checks).
fuzz(JPEGDecoder())
