// libjxl's decoder and encoder, and the thread pool it runs them on (libjxl_threads, its own library).
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
