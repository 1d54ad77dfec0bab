// libjxl's decoder and its thread pool, for the JPEG XL baseline.
#include <jxl/decode.h>
#include <jxl/thread_parallel_runner.h>
