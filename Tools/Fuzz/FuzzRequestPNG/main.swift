import RequestFuzzing

// libFuzzer target for a request on PNG bytes: the registry's decoder, colour management, shrink-on-load,
// the transforms and an encode (see RequestFuzzing for what it runs and checks).
fuzzRequests([.png])
