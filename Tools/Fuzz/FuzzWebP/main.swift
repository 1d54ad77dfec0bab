import FuzzDriver
import TroveWebP

// libFuzzer target for WebPDecoder, stills and animations (see FuzzDriver for what it checks).
fuzz(WebPDecoder())
