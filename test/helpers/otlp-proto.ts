/**
 * The OTLP/protobuf messages a collector parses, as a protobufjs JSON descriptor: the field numbers and
 * types of opentelemetry-proto's `collector/{trace,metrics}/v1` requests and the messages they hold
 * (opentelemetry-proto v1.x, `trace.proto`, `metrics.proto`, `resource.proto`, `common.proto`).
 *
 * Hand-written because no package on the npm registry ships these definitions without pinning
 * `@opentelemetry/api` below the version the project runs (every `@opentelemetry/otlp-transformer` that
 * still carried generated protobufjs code peers on `@opentelemetry/api <1.10`, which made `npm ci` print
 * peer-dependency conflicts). Only what the tests read is declared; protobufjs skips every other field,
 * as a collector built on an older proto would.
 */
import protobuf from 'protobufjs';

const fixed64 = 'fixed64';

const common = {
  AnyValue: {
    oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
    fields: {
      stringValue: { type: 'string', id: 1 },
      boolValue: { type: 'bool', id: 2 },
      intValue: { type: 'int64', id: 3 },
      doubleValue: { type: 'double', id: 4 },
      arrayValue: { type: 'ArrayValue', id: 5 },
      kvlistValue: { type: 'KeyValueList', id: 6 },
      bytesValue: { type: 'bytes', id: 7 },
    },
  },
  ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
  KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
  KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
  InstrumentationScope: {
    fields: {
      name: { type: 'string', id: 1 },
      version: { type: 'string', id: 2 },
      attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
    },
  },
  Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
};

const trace = {
  ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
  ResourceSpans: {
    fields: {
      resource: { type: 'Resource', id: 1 },
      scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  ScopeSpans: {
    fields: {
      scope: { type: 'InstrumentationScope', id: 1 },
      spans: { rule: 'repeated', type: 'Span', id: 2 },
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  Span: {
    fields: {
      traceId: { type: 'bytes', id: 1 },
      spanId: { type: 'bytes', id: 2 },
      traceState: { type: 'string', id: 3 },
      parentSpanId: { type: 'bytes', id: 4 },
      flags: { type: 'fixed32', id: 16 },
      name: { type: 'string', id: 5 },
      kind: { type: 'int32', id: 6 },
      startTimeUnixNano: { type: fixed64, id: 7 },
      endTimeUnixNano: { type: fixed64, id: 8 },
      attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
      events: { rule: 'repeated', type: 'Event', id: 11 },
      status: { type: 'Status', id: 15 },
    },
  },
  Event: {
    fields: {
      timeUnixNano: { type: fixed64, id: 1 },
      name: { type: 'string', id: 2 },
      attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
    },
  },
  Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
};

const metrics = {
  ExportMetricsServiceRequest: { fields: { resourceMetrics: { rule: 'repeated', type: 'ResourceMetrics', id: 1 } } },
  ResourceMetrics: {
    fields: {
      resource: { type: 'Resource', id: 1 },
      scopeMetrics: { rule: 'repeated', type: 'ScopeMetrics', id: 2 },
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  ScopeMetrics: {
    fields: {
      scope: { type: 'InstrumentationScope', id: 1 },
      metrics: { rule: 'repeated', type: 'Metric', id: 2 },
      schemaUrl: { type: 'string', id: 3 },
    },
  },
  Metric: {
    fields: {
      name: { type: 'string', id: 1 },
      description: { type: 'string', id: 2 },
      unit: { type: 'string', id: 3 },
      gauge: { type: 'Gauge', id: 5 },
      sum: { type: 'Sum', id: 7 },
      histogram: { type: 'Histogram', id: 9 },
    },
  },
  Gauge: { fields: { dataPoints: { rule: 'repeated', type: 'NumberDataPoint', id: 1 } } },
  Sum: {
    fields: {
      dataPoints: { rule: 'repeated', type: 'NumberDataPoint', id: 1 },
      aggregationTemporality: { type: 'int32', id: 2 },
      isMonotonic: { type: 'bool', id: 3 },
    },
  },
  NumberDataPoint: {
    oneofs: { value: { oneof: ['asDouble', 'asInt'] } },
    fields: {
      attributes: { rule: 'repeated', type: 'KeyValue', id: 7 },
      startTimeUnixNano: { type: fixed64, id: 2 },
      timeUnixNano: { type: fixed64, id: 3 },
      asDouble: { type: 'double', id: 4 },
      asInt: { type: 'sfixed64', id: 6 },
      flags: { type: 'uint32', id: 8 },
    },
  },
  Histogram: {
    fields: {
      dataPoints: { rule: 'repeated', type: 'HistogramDataPoint', id: 1 },
      aggregationTemporality: { type: 'int32', id: 2 },
    },
  },
  HistogramDataPoint: {
    fields: {
      attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
      startTimeUnixNano: { type: fixed64, id: 2 },
      timeUnixNano: { type: fixed64, id: 3 },
      count: { type: fixed64, id: 4 },
      sum: { type: 'double', id: 5 },
      bucketCounts: { rule: 'repeated', type: fixed64, id: 6 },
      explicitBounds: { rule: 'repeated', type: 'double', id: 7 },
      flags: { type: 'uint32', id: 10 },
      min: { type: 'double', id: 11 },
      max: { type: 'double', id: 12 },
    },
  },
};

/** The request messages, decodable: `otlp.lookupType('ExportTraceServiceRequest').decode(bytes)`. */
export const otlp = protobuf.Root.fromJSON({ nested: { ...common, ...trace, ...metrics } });
