"""A small OTLP/HTTP receiver for the tests: POST /v1/traces with a protobuf ExportTraceServiceRequest is
decoded with opentelemetry-proto and each span written as one JSON line to OUTPUT (ids in hex, attributes
as plain values, the resource's attributes beside them); POST /v1/metrics with an
ExportMetricsServiceRequest likewise, one line per data point ("metric", "type", "attributes", and "value"
for a sum or gauge, "count" and "sum" for a histogram); anything else is 404. Listens on 127.0.0.1:PORT
until killed. Usage: otlp_receiver.py PORT OUTPUT"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: value(item.value) for item in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind) if kind else None


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


def lines(request):
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "status": span.status.code,
                    "attributes": attributes(span.attributes),
                    "events": [{"name": e.name, "attributes": attributes(e.attributes)} for e in span.events],
                    "resource": resource,
                }


def point_lines(request):
    for resource_metrics in request.resource_metrics:
        resource = attributes(resource_metrics.resource.attributes)
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                kind = metric.WhichOneof("data")
                for point in getattr(metric, kind).data_points:
                    line = {"metric": metric.name, "type": kind, "attributes": attributes(point.attributes),
                            "resource": resource}
                    if kind in ("sum", "gauge"):
                        which = point.WhichOneof("value")
                        line["value"] = getattr(point, which) if which else None
                    else:
                        line["count"], line["sum"] = point.count, point.sum
                    yield line


# What each path decodes: the request type, its lines, and the answer.
EXPORTS = {
    "/v1/traces": (ExportTraceServiceRequest, lines, ExportTraceServiceResponse),
    "/v1/metrics": (ExportMetricsServiceRequest, point_lines, ExportMetricsServiceResponse),
}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path not in EXPORTS:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        request_type, read, answer_type = EXPORTS[self.path]
        request = request_type()
        request.ParseFromString(body)
        with open(OUTPUT, "a", encoding="utf-8") as output:
            for line in read(request):
                output.write(json.dumps(line) + "\n")
        answer = answer_type().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_):
        pass


if __name__ == "__main__":
    PORT, OUTPUT = int(sys.argv[1]), sys.argv[2]
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
